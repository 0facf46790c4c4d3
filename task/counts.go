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
// It is an open-addressing hash table built for word counting, where the
// time goes to cache misses (on the VMs ebb was measured on, a miss that
// the next instruction waits for costs ~250 ns):
//
//   - slots is a power-of-two array of 16-byte slots (a key word and the
//     count), probed linearly from hash & mask and at most half full. A
//     key of up to inlineMax bytes (nearly every word) lives in its slot's
//     key word, so a lookup is one cache line: finding it is comparing one
//     uint64, and sorting inline keys is sorting integers. A longer key
//     lives in the arena, and its key word holds the hash's top bits (a
//     tag) and its offset there, so a probe reads the arena only when the
//     tags match (keyword.go).
//   - the arena holds the long keys back to back (length, bytes) in
//     chunks that never move. No key is an allocation of its own, and no
//     array holds pointers, so the collector never scans them.
//   - adds are queued and looked up a batch at a time (flush): first the
//     slot of every queued key is loaded, in a loop with nothing else to
//     wait for, so that the misses of a batch overlap instead of following
//     one another.
//
// The budget counts what the table really holds: the slots and the
// arena's chunks; growing the slots counts the old and new arrays
// together, as both are live while the keys move. A spill sorts the slots
// where they are. TestWordCountHeapStaysUnderTheSpillBudget checks the
// estimate against the heap.
type countTable struct {
	slots []slot
	n     int // keys held

	chunks    [][]byte // the arena, regular chunks kept from one spill to the next
	used      int      // chunks[:used] hold keys of this table
	chunkBits uint     // regular chunks hold 1<<chunkBits bytes
	longs     int      // chunks made for one long key each
	long      int64    // and their bytes

	queue      [batchKeys]queued // adds not yet looked up: queue[:queued]
	queued     int
	queueBytes []byte // the long keys of the queue

	budget int64
	sorter *externalSorter
}

// slot holds one key and its count; a key word of 0 is an empty slot.
type slot struct {
	key uint64
	n   int64
}

// queued is an add waiting in the queue; a long key is queueBytes[from:to].
type queued struct {
	key, hash uint64
	n         int64
	from, to  int32
}

const (
	// entryHeader is the key's length before each key in the arena: 8
	// bytes, as a line (and so a key) may be longer than 4 GiB under a
	// large enough ask.
	entryHeader = 8
	// minSlots is the size of an empty table: 16 KiB.
	minSlots = 1 << 10
	// batchKeys is how many adds a flush looks up together: enough misses
	// to overlap, few enough that their cache lines stay in L1 until the
	// adds use them.
	batchKeys = 64
	// queueKeyBytes is the room for the long keys of a batch; a key
	// longer than that is added at once.
	queueKeyBytes = 16 << 10
)

func newCountTable(budget int64, sorter *externalSorter) *countTable {
	// Chunks of an eighth of the budget, within 4 KiB..1 MiB, as
	// lineBuffer's: a half-filled one wastes little, and allocating them
	// costs nothing.
	chunkBits := uint(bits.Len64(uint64(min(max(budget/8, 4<<10), 1<<20))) - 1)
	return &countTable{
		slots:      make([]slot, minSlots),
		chunkBits:  chunkBits,
		queueBytes: make([]byte, 0, queueKeyBytes),
		budget:     budget,
		sorter:     sorter,
	}
}

// add adds n to key's count, spilling first when a new key would not fit.
// The add may wait in a queue until the table is read or the queue full;
// key is not kept.
func (t *countTable) add(key []byte, n int64) error {
	if len(key) <= inlineMax {
		k := inlineKey(key)
		t.queue[t.queued] = queued{key: k, hash: hashInline(k), n: n}
	} else {
		if len(key) > cap(t.queueBytes)-len(t.queueBytes) {
			if err := t.flush(); err != nil {
				return err
			}
			if len(key) > cap(t.queueBytes) {
				return t.addLong(key, hashKey(key), n)
			}
		}
		from := len(t.queueBytes)
		t.queueBytes = append(t.queueBytes, key...)
		t.queue[t.queued] = queued{hash: hashKey(key), n: n, from: int32(from), to: int32(len(t.queueBytes))}
	}
	if t.queued++; t.queued == batchKeys {
		return t.flush()
	}
	return nil
}

// flush looks the queued adds up: the slots first, all together (the
// loads do not depend on each other, so their misses overlap), then the
// arena entries the long keys' first slots point to, then the adds
// themselves, which find those lines in the cache.
func (t *countTable) flush() error {
	var first [batchKeys]uint64
	q := t.queue[:t.queued]
	mask := uint64(len(t.slots) - 1)
	for i := range q {
		first[i] = t.slots[q[i].hash&mask].key
	}
	for i := range q {
		if k := first[i]; q[i].key == 0 && isArenaKey(k) {
			first[i] = uint64(t.entry(arenaOffset(k))[0])
		}
	}
	var err error
	for i := range q {
		if q[i].key != 0 {
			err = t.addInline(q[i].key, q[i].hash, q[i].n)
		} else {
			err = t.addLong(t.queueBytes[q[i].from:q[i].to], q[i].hash, q[i].n)
		}
		if err != nil {
			break
		}
	}
	t.queued, t.queueBytes = 0, t.queueBytes[:0]
	return err
}

// addInline adds n to the count of the inline key k.
func (t *countTable) addInline(k, h uint64, n int64) error {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == k {
			s.n += n
			return nil
		}
		if s.key == 0 {
			break
		}
	}
	return t.insert(k, nil, h, n)
}

// addLong adds n to the count of a key longer than inlineMax.
func (t *countTable) addLong(key []byte, h uint64, n int64) error {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == 0 {
			break
		}
		if mayBe(s.key, h) && bytes.Equal(entryKey(t.entry(arenaOffset(s.key))), key) {
			s.n += n
			return nil
		}
	}
	return t.insert(0, key, h, n)
}

// insert adds a key that is not in the table: the inline key k, or the
// long key.
func (t *countTable) insert(k uint64, long []byte, h uint64, n int64) error {
	grow := 2*(t.n+1) > len(t.slots)
	if t.n > 0 && t.bytesWith(long, grow) > t.budget {
		if err := t.spill(); err != nil {
			return err
		}
		grow = false // the keys are gone; the slots stay as large
	}
	if grow {
		t.grow()
	}
	if long != nil {
		k = arenaKey(h, t.store(long))
	}
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slot{key: k, n: n}
	t.n++
	return nil
}

// bytesWith is the memory the table would hold, at its peak, once a new
// key (long, or inline if nil) is in.
func (t *countTable) bytesWith(long []byte, grow bool) int64 {
	slots := int64(len(t.slots)) * 16
	if grow {
		slots *= 3 // the old array and the new one, twice as large
	}
	// Every regular chunk counts, in use or not: the spare ones are live.
	arena := int64(len(t.chunks)-t.longs)<<t.chunkBits + t.long
	if long != nil {
		if size := int64(entryHeader + len(long)); t.isLong(size) {
			arena += size
		} else if t.newChunk(size) && t.used == len(t.chunks) {
			arena += 1 << t.chunkBits
		}
	}
	return slots + arena
}

// grow doubles the slots and places every key again.
func (t *countTable) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := t.hashOf(s.key) & mask
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// hashOf is the hash of the key in a slot.
func (t *countTable) hashOf(k uint64) uint64 {
	if isArenaKey(k) {
		return hashKey(entryKey(t.entry(arenaOffset(k))))
	}
	return hashInline(k)
}

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

// spill writes the table as a sorted run and empties it, keeping the
// slots and the regular chunks for the next keys.
func (t *countTable) spill() error {
	if err := t.sorter.spill(t.inOrder()); err != nil {
		return err
	}
	clear(t.slots[:t.n])
	t.n = 0
	kept := t.chunks[:0]
	for _, c := range t.chunks {
		if cap(c) == 1<<t.chunkBits {
			kept = append(kept, c[:0])
		}
	}
	clear(t.chunks[len(kept):]) // or the long keys could not be collected
	t.chunks, t.used, t.longs, t.long = kept, 0, 0, 0
	return nil
}

// inOrder lists the table's records in key order; queued adds are not
// among them (finish flushes first). It sorts the slots themselves, moved
// to the front of the array: the table is emptied (spill) or done (finish)
// once they are read, and sorting costs no memory of its own.
func (t *countTable) inOrder() recordSource {
	held := t.slots[:0]
	for _, s := range t.slots {
		if s.key != 0 {
			held = append(held, s)
		}
	}
	clear(t.slots[len(held):])
	if t.used == 0 {
		radixSortSlots(held) // no long key: the key words alone order the keys
	} else {
		slices.SortFunc(held, t.compare)
	}
	return &tableSource{t: t, recs: held}
}

// compare orders slots by key. Two inline keys compare as their key
// words (keyword.go); a long key is read from the arena.
func (t *countTable) compare(a, b slot) int {
	if !isArenaKey(a.key) && !isArenaKey(b.key) {
		return cmp.Compare(a.key, b.key)
	}
	var ba, bb [inlineMax]byte
	return bytes.Compare(t.key(a.key, ba[:0]), t.key(b.key, bb[:0]))
}

// key is the key in a slot: in the arena, or an inline key appended to
// buf.
func (t *countTable) key(k uint64, buf []byte) []byte {
	if isArenaKey(k) {
		return entryKey(t.entry(arenaOffset(k)))
	}
	return appendInline(buf, k)
}

// finish merges the spilled runs and the table to emit, one call per
// distinct key in key order.
func (t *countTable) finish(emit func(key []byte, n int64) error) error {
	if err := t.flush(); err != nil {
		return err
	}
	return t.sorter.merge(emit, memRun{t.inOrder()})
}

// tableSource reads a countTable's sorted records; long keys point into
// the arena, which stays as it is until the source is read.
type tableSource struct {
	t    *countTable
	recs []slot
	buf  [inlineMax]byte
}

func (s *tableSource) next() ([]byte, int64, error) {
	if len(s.recs) == 0 {
		return nil, 0, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return s.t.key(r.key, s.buf[:0]), r.n, nil
}

func (s *tableSource) close() error { return nil }
