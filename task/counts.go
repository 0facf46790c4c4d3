package task

import (
	"io"
	"math"
	"slices"
)

// countEntryBytes is what one distinct key costs a countTable beside its
// bytes. Measured with Go 1.26 for 10^5..3·10^6 keys of ~10 bytes, a
// map[string]int64 takes 41 to 61 bytes per key beyond the key's bytes
// (the string header and value in a slot, control bytes, free slots, the
// key's allocation rounded up to a size class); the int32 index instead of
// the count leaves that unchanged, the count in its chunk adds 8, and the
// sorted key list of a spill 16. 96 keeps the estimate above the heap
// really taken (TestWordCountHeapStaysUnderTheSpillBudget checks).
const countEntryBytes = 96

// countChunk is the number of counts per chunk: chunks never move, so
// growing the table never copies the counts.
const countChunk = 1 << 12

// countTable sums counts per key in memory (the combiner) and, when its
// estimated size passes the budget, spills its keys in order as a run and
// starts over empty. Looking a key up by the []byte of a line does not
// allocate, so only new keys cost an allocation: the map holds an index
// into chunks of counts, where a map of counts would allocate a string
// key on every update.
type countTable struct {
	index  map[string]uint32
	counts [][]int64
	n      int
	keys   []string // reused by every spill
	bytes  int64
	budget int64
	sorter *externalSorter
}

func newCountTable(budget int64, sorter *externalSorter) *countTable {
	return &countTable{index: map[string]uint32{}, budget: budget, sorter: sorter}
}

// add adds n to key's count, spilling first when a new key would not fit.
func (t *countTable) add(key []byte, n int64) error {
	if i, ok := t.index[string(key)]; ok {
		t.counts[i/countChunk][i%countChunk] += n
		return nil
	}
	if t.n > 0 && (t.bytes+int64(len(key))+countEntryBytes > t.budget || t.n == math.MaxUint32) {
		if err := t.spill(); err != nil {
			return err
		}
	}
	if t.n/countChunk == len(t.counts) {
		t.counts = append(t.counts, make([]int64, countChunk))
	}
	t.counts[t.n/countChunk][t.n%countChunk] = n
	t.index[string(key)] = uint32(t.n)
	t.n++
	t.bytes += int64(len(key)) + countEntryBytes
	return nil
}

// spill writes the table as a sorted run and empties it, keeping the map's
// and the chunks' memory for the next keys.
func (t *countTable) spill() error {
	if err := t.sorter.spill(t.sorted()); err != nil {
		return err
	}
	clear(t.index)
	clear(t.keys) // or the spilled keys could not be collected
	t.keys = t.keys[:0]
	t.n, t.bytes = 0, 0
	return nil
}

// sorted lists the table's records in key order.
func (t *countTable) sorted() recordSource {
	t.keys = t.keys[:0]
	for k := range t.index {
		t.keys = append(t.keys, k)
	}
	slices.Sort(t.keys)
	return &countSource{t: t}
}

// finish merges the spilled runs and the table to emit, one call per
// distinct key in key order.
func (t *countTable) finish(emit func(key []byte, n int64) error) error {
	return t.sorter.merge(emit, memRun{t.sorted()})
}

// countSource reads a countTable's sorted keys.
type countSource struct {
	t   *countTable
	i   int
	key []byte
}

func (s *countSource) next() ([]byte, int64, error) {
	if s.i == len(s.t.keys) {
		return nil, 0, io.EOF
	}
	k := s.t.keys[s.i]
	s.i++
	j := s.t.index[k]
	s.key = append(s.key[:0], k...)
	return s.key, s.t.counts[j/countChunk][j%countChunk], nil
}

func (s *countSource) close() error { return nil }
