package shuffle

import (
	"container/heap"
	"io"
)

// Merge is a k-way merge of sorted sources into emit, in cmp's order;
// records that compare equal come out in the order of their sources in
// srcs (then each source's own order), so a merge is deterministic.
func Merge(srcs []Source, cmp Compare, emit func(key, value []byte) error) error {
	h := &mergeHeap{cmp: cmp}
	for i, s := range srcs {
		k, v, err := s.Next()
		if err == io.EOF {
			continue
		}
		if err != nil {
			return err
		}
		h.items = append(h.items, mergeItem{key: k, value: v, src: s, order: i})
	}
	heap.Init(h)
	for len(h.items) > 0 {
		top := &h.items[0]
		if err := emit(top.key, top.value); err != nil {
			return err
		}
		k, v, err := top.src.Next()
		switch {
		case err == io.EOF:
			heap.Pop(h)
		case err != nil:
			return err
		default:
			top.key, top.value = k, v
			heap.Fix(h, 0)
		}
	}
	return nil
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
