package task

import (
	"bytes"
	"math/bits"
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
// arena's chunks (arena.go); growing the slots counts the old and new
// arrays together, as both are live while the keys move. A spill sorts
// the slots where they are (countorder.go). The queue's 18 KiB are left to
// the slack budget.go keeps beside the buffer.
// TestWordCountHeapStaysUnderTheSpillBudget checks the estimate against
// the heap.
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
