package task

import (
	"io"
	"math"
	"slices"
	"strings"
)

// countEntryBytes is what one distinct key costs a countTable beside its
// bytes. Measured with Go 1.26 for 10^5..3·10^6 keys of ~10 bytes, a
// map[string]int64 takes 41 to 61 bytes per key beyond the key's bytes
// (the string header and value in a slot, control bytes, free slots, the
// key's allocation rounded up to a size class); the int32 index instead of
// the count leaves that unchanged, the count in its chunk adds 8, and the
// sorted list of keys and counts of a spill 24. 96 keeps the estimate
// above the heap really taken (TestWordCountHeapStaysUnderTheSpillBudget
// checks).
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
	sorted []keyCount // reused by every spill
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
	if err := t.sorter.spill(t.inOrder()); err != nil {
		return err
	}
	clear(t.index)
	clear(t.sorted) // or the spilled keys could not be collected
	t.sorted = t.sorted[:0]
	t.n, t.bytes = 0, 0
	return nil
}

type keyCount struct {
	key string
	n   int64
}

// inOrder lists the table's records in key order. Keys and counts are
// listed together: looking each count up again would cost a second random
// access to the map per key.
func (t *countTable) inOrder() recordSource {
	t.sorted = t.sorted[:0]
	for k, i := range t.index {
		t.sorted = append(t.sorted, keyCount{k, t.counts[i/countChunk][i%countChunk]})
	}
	slices.SortFunc(t.sorted, func(a, b keyCount) int { return strings.Compare(a.key, b.key) })
	return &countSource{recs: t.sorted}
}

// finish merges the spilled runs and the table to emit, one call per
// distinct key in key order.
func (t *countTable) finish(emit func(key []byte, n int64) error) error {
	return t.sorter.merge(emit, memRun{t.inOrder()})
}

// countSource reads a countTable's sorted records.
type countSource struct {
	recs []keyCount
	key  []byte
}

func (s *countSource) next() ([]byte, int64, error) {
	if len(s.recs) == 0 {
		return nil, 0, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	s.key = append(s.key[:0], r.key...)
	return s.key, r.n, nil
}

func (s *countSource) close() error { return nil }
