package core

// fitsIndex counts a group's nodes by their FitsMB (the largest request
// one of the group's workers there can take), so the placement pass
// knows the largest without a walk over every node: a request above it
// fits nowhere (mayFit). Nodes take few distinct values (a worker's
// memory less whole attempts), so finding the next largest when the
// last node with the largest changes walks few keys.
// The zero value is empty and ready.
type fitsIndex struct {
	count map[int64]int
	max   int64 // the largest FitsMB counted; 0 with none (FitsMB >= 0)
}

func (x *fitsIndex) add(mb int64) {
	if x.count == nil {
		x.count = map[int64]int{}
	}
	x.count[mb]++
	x.max = max(x.max, mb)
}

func (x *fitsIndex) remove(mb int64) {
	if x.count[mb]--; x.count[mb] > 0 {
		return
	}
	delete(x.count, mb)
	if mb < x.max {
		return
	}
	x.max = 0
	for k := range x.count {
		x.max = max(x.max, k)
	}
}

// change moves one node from old to mb.
func (x *fitsIndex) change(old, mb int64) {
	if old != mb {
		x.add(mb)
		x.remove(old)
	}
}
