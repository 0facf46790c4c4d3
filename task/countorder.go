package task

import (
	"bytes"
	"cmp"
	"io"
	"slices"
)

// A countTable's keys in order, for a spill's run or the final merge.

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
