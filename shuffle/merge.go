package shuffle

import (
	"container/heap"
	"io"
)

// Merge is a k-way merge of sorted sources into emit, in cmp's order;
// records that compare equal come out in the order of their sources in
// srcs (then each source's own order), so a merge is deterministic.
func Merge(srcs []Source, cmp Compare, emit func(key, value []byte) error) error {
	m, err := NewMergeSource(srcs, cmp)
	if err != nil {
		return err
	}
	for {
		k, v, err := m.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := emit(k, v); err != nil {
			return err
		}
	}
}

// MergeSource is Merge as a Source, for a reader that pulls (a combiner
// over the final merge).
type MergeSource struct {
	h *mergeHeap
	// taken: the heap's top was returned; its source moves on at the
	// next call, so what was returned stays valid until then.
	taken bool
}

// NewMergeSource reads the first record of every source.
func NewMergeSource(srcs []Source, cmp Compare) (*MergeSource, error) {
	h := &mergeHeap{cmp: cmp}
	for i, s := range srcs {
		k, v, err := s.Next()
		if err == io.EOF {
			continue
		}
		if err != nil {
			return nil, err
		}
		h.items = append(h.items, mergeItem{key: k, value: v, src: s, order: i})
	}
	heap.Init(h)
	return &MergeSource{h: h}, nil
}

// Empty says whether the merge holds no record at all (before the first
// Next).
func (m *MergeSource) Empty() bool { return !m.taken && len(m.h.items) == 0 }

// Next returns the next record in order, or io.EOF.
func (m *MergeSource) Next() ([]byte, []byte, error) {
	h := m.h
	if m.taken {
		m.taken = false
		top := &h.items[0]
		k, v, err := top.src.Next()
		switch {
		case err == io.EOF:
			heap.Pop(h)
		case err != nil:
			return nil, nil, err
		default:
			top.key, top.value = k, v
			heap.Fix(h, 0)
		}
	}
	if len(h.items) == 0 {
		return nil, nil, io.EOF
	}
	m.taken = true
	return h.items[0].key, h.items[0].value, nil
}

type mergeItem struct {
	key, value []byte
	src        Source
	order      int
}

type mergeHeap struct {
	items []mergeItem
	cmp   Compare
}

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	if c := h.cmp(h.items[i].key, h.items[j].key); c != 0 {
		return c < 0
	}
	return h.items[i].order < h.items[j].order
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}
