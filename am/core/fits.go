package core

import "slices"

// fitsIndex counts a group's nodes by their FitsMB (the largest request
// one of the group's workers there can take), so the placement pass
// knows the largest without a walk over every node: a request above it
// fits nowhere (mayFit). Nodes take few distinct values (a worker's
// memory less whole attempts), so they are a short sorted list, not a
// map: every attempt's start and end moves a node between two values,
// and a map cost two hashed updates and a walk over its keys whenever
// the largest value's last node left.
// The zero value is empty and ready.
type fitsIndex struct {
	count []fitsCount // by mb, ascending; no zero counts
	max   int64       // the largest FitsMB counted; 0 with none (FitsMB >= 0)
}

type fitsCount struct {
	mb int64
	n  int
}

// find is mb's position in count, and whether it is there.
func (x *fitsIndex) find(mb int64) (int, bool) {
	return slices.BinarySearchFunc(x.count, mb, func(c fitsCount, mb int64) int {
		switch {
		case c.mb < mb:
			return -1
		case c.mb > mb:
			return 1
		}
		return 0
	})
}

func (x *fitsIndex) add(mb int64) {
	i, ok := x.find(mb)
	if ok {
		x.count[i].n++
		return
	}
	x.count = slices.Insert(x.count, i, fitsCount{mb: mb, n: 1})
	x.max = max(x.max, mb)
}

func (x *fitsIndex) remove(mb int64) {
	i, ok := x.find(mb)
	if !ok {
		return
	}
	if x.count[i].n--; x.count[i].n > 0 {
		return
	}
	x.count = slices.Delete(x.count, i, i+1)
	x.max = 0
	if len(x.count) > 0 {
		x.max = max(0, x.count[len(x.count)-1].mb)
	}
}

// change moves one node from old to mb.
func (x *fitsIndex) change(old, mb int64) {
	if old != mb {
		x.add(mb)
		x.remove(old)
	}
}
