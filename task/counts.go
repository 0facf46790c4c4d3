package task

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
)

// countTable sums counts per key in memory (the combiner) and, when its
// memory would pass the budget, spills its keys in order as a run and
// starts over empty.
//
// It is an open-addressing hash table built for word counting, where
// Go's map spent most of wc-map's time (each of ~10^6 distinct words a
// string of its own, found through a control word, a string header and
// the string's bytes: three cache misses a lookup):
//
//   - slots is a power-of-two array of uint64, probed linearly from
//     hash & mask, at most half full. A slot is 0 when empty, else the
//     hash's top bits (the tag, its highest bit always 1 so a slot is
//     never 0) over the entry's offset in the arena (offBits). A probe
//     that meets another key reads the arena only when the tags match,
//     one time in 2^23.
//   - the arena holds the entries back to back in chunks that never move:
//     count (8 bytes, little-endian), key length (4 bytes), key. A hit is
//     two cache misses at most (the slot, then the entry), and none for
//     the frequent words, which come first and so sit together at the
//     arena's start. No key is a Go allocation of its own, and neither
//     array holds pointers, so the collector never scans them.
//
// The budget counts what the table really holds: the slots, the arena's
// chunks, and the list a spill sorts (sortEntryBytes per key); growing the
// slots counts the old and new arrays together, as both are live while
// the keys move. TestWordCountHeapStaysUnderTheSpillBudget checks the
// estimate against the heap.
type countTable struct {
	slots []uint64
	n     int // keys held

	chunks    [][]byte // the arena, regular chunks kept from one spill to the next
	used      int      // chunks[:used] hold entries of this table
	chunkBits uint     // regular chunks hold 1<<chunkBits bytes
	longs     int      // chunks made for one long entry each
	long      int64    // and their bytes

	sorted []sortEntry // reused by every spill
	budget int64
	sorter *externalSorter
}

const (
	// offBits of a slot are the entry's offset: chunk index above
	// chunkBits, position in the chunk below. 2^40 bytes of arena is far
	// beyond any budget.
	offBits = 40
	offMask = 1<<offBits - 1
	// entryHeader is the count and the key's length before each key.
	entryHeader = 12
	// sortEntryBytes is one key's place in the list a spill sorts.
	sortEntryBytes = 16
	// minSlots is the size of an empty table: 8 KiB.
	minSlots = 1 << 10
)

func newCountTable(budget int64, sorter *externalSorter) *countTable {
	// Chunks of an eighth of the budget, within 4 KiB..1 MiB, as
	// lineBuffer's: a half-filled one wastes little, and allocating them
	// costs nothing.
	chunkBits := uint(bits.Len64(uint64(min(max(budget/8, 4<<10), 1<<20))) - 1)
	return &countTable{slots: make([]uint64, minSlots), chunkBits: chunkBits, budget: budget, sorter: sorter}
}

// add adds n to key's count, spilling first when a new key would not fit.
func (t *countTable) add(key []byte, n int64) error {
	h := hashKey(key)
	tag := (h | 1<<63) &^ offMask
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			break
		}
		if s&^offMask == tag {
			if e := t.entry(s & offMask); bytes.Equal(entryKey(e), key) {
				binary.LittleEndian.PutUint64(e, binary.LittleEndian.Uint64(e)+uint64(n))
				return nil
			}
		}
	}
	return t.insert(key, n, h, tag)
}

// insert adds a key that is not in the table.
func (t *countTable) insert(key []byte, n int64, h, tag uint64) error {
	grow := 2*(t.n+1) > len(t.slots)
	if t.n > 0 && t.bytesWith(len(key), grow) > t.budget {
		if err := t.spill(); err != nil {
			return err
		}
		grow = false // the keys are gone; the slots stay as large
	}
	if grow {
		t.grow()
	}
	off := t.store(key, n)
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = tag | off
	t.n++
	return nil
}

// bytesWith is the memory the table would hold, at its peak, once a new
// key of keyLen bytes is in.
func (t *countTable) bytesWith(keyLen int, grow bool) int64 {
	slots := int64(len(t.slots)) * 8
	if grow {
		slots *= 3 // the old array and the new one, twice as large
	}
	// Every regular chunk counts, in use or not: the spare ones are live.
	arena := int64(len(t.chunks)-t.longs)<<t.chunkBits + t.long
	if size := int64(entryHeader + keyLen); t.isLong(size) {
		arena += size
	} else if t.newChunk(size) && t.used == len(t.chunks) {
		arena += 1 << t.chunkBits
	}
	keys := int64(max(t.n+1, cap(t.sorted))) * sortEntryBytes
	return slots + arena + keys
}

// grow doubles the slots and places every key again.
func (t *countTable) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := hashKey(entryKey(t.entry(s&offMask))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// isLong says whether an entry of size bytes gets a chunk of its own: one
// longer than a quarter chunk, so that moving on to a new chunk wastes at
// most a quarter of one.
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

// store appends an entry to the arena and returns its offset.
func (t *countTable) store(key []byte, n int64) uint64 {
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
	*c = binary.LittleEndian.AppendUint64(*c, uint64(n))
	*c = binary.LittleEndian.AppendUint32(*c, uint32(len(key)))
	*c = append(*c, key...)
	return uint64(t.used-1)<<t.chunkBits | uint64(pos)
}

// entry is the arena from the entry at off on: its count, key length and
// key first.
func (t *countTable) entry(off uint64) []byte {
	return t.chunks[off>>t.chunkBits][off&(1<<t.chunkBits-1):]
}

func entryKey(e []byte) []byte {
	return e[entryHeader : entryHeader+binary.LittleEndian.Uint32(e[8:])]
}

// spill writes the table as a sorted run and empties it, keeping the
// slots, the regular chunks and the sort list for the next keys.
func (t *countTable) spill() error {
	if err := t.sorter.spill(t.inOrder()); err != nil {
		return err
	}
	clear(t.slots)
	t.n = 0
	kept := t.chunks[:0]
	for _, c := range t.chunks {
		if cap(c) == 1<<t.chunkBits {
			kept = append(kept, c[:0])
		}
	}
	clear(t.chunks[len(kept):]) // or the long entries could not be collected
	t.chunks, t.used, t.longs, t.long = kept, 0, 0, 0
	return nil
}

// sortEntry is a key's place in the sorted list: its first 8 bytes as a
// big-endian number, which orders most keys without reading the arena,
// and its offset.
type sortEntry struct {
	prefix, off uint64
}

// inOrder lists the table's records in key order.
func (t *countTable) inOrder() recordSource {
	t.sorted = t.sorted[:0]
	for _, s := range t.slots {
		if s != 0 {
			off := s & offMask
			t.sorted = append(t.sorted, sortEntry{keyPrefix(entryKey(t.entry(off))), off})
		}
	}
	slices.SortFunc(t.sorted, func(a, b sortEntry) int {
		if c := cmp.Compare(a.prefix, b.prefix); c != 0 || a.off == b.off {
			return c
		}
		return bytes.Compare(entryKey(t.entry(a.off)), entryKey(t.entry(b.off)))
	})
	return &tableSource{t: t, recs: t.sorted}
}

// keyPrefix is the key's first 8 bytes, zero-padded, big-endian: keys
// whose prefixes differ compare as their prefixes do (a shorter key pads
// with 0, the least byte), and equal prefixes leave the order to the keys.
func keyPrefix(key []byte) uint64 {
	var p [8]byte
	copy(p[:], key)
	return binary.BigEndian.Uint64(p[:])
}

// finish merges the spilled runs and the table to emit, one call per
// distinct key in key order.
func (t *countTable) finish(emit func(key []byte, n int64) error) error {
	return t.sorter.merge(emit, memRun{t.inOrder()})
}

// tableSource reads a countTable's sorted records; keys point into the
// arena, which stays as it is until the source is read.
type tableSource struct {
	t    *countTable
	recs []sortEntry
}

func (s *tableSource) next() ([]byte, int64, error) {
	if len(s.recs) == 0 {
		return nil, 0, io.EOF
	}
	e := s.t.entry(s.recs[0].off)
	s.recs = s.recs[1:]
	return entryKey(e), int64(binary.LittleEndian.Uint64(e)), nil
}

func (s *tableSource) close() error { return nil }
