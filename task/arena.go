package task

import (
	"encoding/binary"
	"slices"
)

// The arena of a countTable: its long keys (over inlineMax bytes), each
// as its length (entryHeader bytes) and its bytes, back to back in
// chunks that never move, so an arena key word's offset stays valid until
// the table is emptied.

// isLong says whether an arena entry of size bytes gets a chunk of its
// own: one longer than a quarter chunk, so that moving on to a new chunk
// wastes at most a quarter of one.
func (t *countTable) isLong(size int64) bool { return size > 1<<t.chunkBits/4 }

// newChunk says whether a regular entry of size bytes starts a chunk:
// when none is in use or the last one has no room (a long entry's chunk
// never has any).
func (t *countTable) newChunk(size int64) bool {
	if t.used == 0 {
		return true
	}
	c := t.chunks[t.used-1]
	return int64(cap(c)-len(c)) < size
}

// store appends a key to the arena and returns its offset.
func (t *countTable) store(key []byte) uint64 {
	size := int64(entryHeader + len(key))
	switch {
	case t.isLong(size):
		// Its own chunk, after the last in use; a regular chunk there is
		// kept for later by moving it to the end.
		t.chunks = slices.Insert(t.chunks, t.used, make([]byte, 0, size))
		t.longs++
		t.long += size
		t.used++
	case t.newChunk(size):
		if t.used == len(t.chunks) {
			t.chunks = append(t.chunks, make([]byte, 0, 1<<t.chunkBits))
		}
		t.used++
	}
	c := &t.chunks[t.used-1]
	pos := len(*c)
	*c = binary.LittleEndian.AppendUint64(*c, uint64(len(key)))
	*c = append(*c, key...)
	return uint64(t.used-1)<<t.chunkBits | uint64(pos)
}

// entry is the arena from the entry at off on: the key's length, then the
// key.
func (t *countTable) entry(off uint64) []byte {
	return t.chunks[off>>t.chunkBits][off&(1<<t.chunkBits-1):]
}

func entryKey(e []byte) []byte {
	return e[entryHeader : entryHeader+binary.LittleEndian.Uint64(e)]
}
