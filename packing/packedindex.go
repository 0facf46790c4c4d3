package packing

import "math"

// packedIndex answers packed's Choose from tournament trees, as
// spreadIndex answers spread's: packed's scan over every node was 43% of
// a placement at 10,000 workers under the AM's default scheme. Below
// packed's minimum node count it is a spreadIndex (packed spreads there).
// At or above it, each subtree keeps what packed's three steps ask:
//
//  1. the fullest medium node (ignoring fit) and the largest request a
//     medium node takes while staying at or below the threshold (q: its
//     FitsMB, and the room below the threshold);
//  2. how many low nodes it holds, and their smallest and largest FitsMB,
//     to count the low nodes a request fits and find the k-th;
//  3. the emptiest node with usage (ignoring fit) and the largest FitsMB
//     among those. Packed reaches step 3 only when no fitting medium node
//     stays at or below the threshold, so its candidates are then exactly
//     the fitting nodes with usage.
//
// Searches go down from the root and leave a subtree when nothing in it
// qualifies or its best cannot beat the node already found; they are
// exact, and fast when nodes' sizes repeat (a group's workers are alike).
type packedIndex struct {
	spread    spreadIndex
	threshold int64
	minNodes  int
	tournament[ptree]
	stack []int32
}

type ptree struct {
	med            int32 // the fullest medium node (then lowest index); -1: none
	maxQ           int64 // the largest q of a medium node
	rest           int32 // the emptiest node with usage (then lowest index); -1: none
	restFits       int64 // the largest FitsMB of a node with usage
	lows           int32 // low nodes (with capacity)
	lowMin, lowMax int64 // their smallest and largest FitsMB
}

var emptyPTree = ptree{med: -1, maxQ: math.MinInt64, rest: -1, restFits: math.MinInt64,
	lowMin: math.MaxInt64, lowMax: math.MinInt64}

// NewIndex: packed's index covers every request without a locality
// preference or resource types.
func (p packed) NewIndex() Index {
	return &packedIndex{threshold: p.threshold, minNodes: p.minNodes}
}

func (x *packedIndex) Resize(n int) {
	x.spread.Resize(n)
	x.resize(n, x.leafTree, x.join, x.fix)
}

func (x *packedIndex) Set(i int, n Node) {
	x.spread.Set(i, n)
	x.nodes[i] = leaf{used: n.UsedMB, capacity: n.CapacityMB, fits: n.FitsMB}
	x.fix(i)
}

func (x *packedIndex) fix(i int) {
	s := x.leaves + i
	x.tree[s] = x.leafTree(i)
	for s /= 2; s >= 1; s /= 2 {
		x.tree[s] = x.join(x.tree[2*s], x.tree[2*s+1])
	}
}

// leafTree sorts node i into packed's bands (BandOf).
func (x *packedIndex) leafTree(i int) ptree {
	l := x.nodes[i]
	t := emptyPTree
	switch {
	case l.capacity <= 0: // never chosen
	case l.used <= 0:
		t.lows, t.lowMin, t.lowMax = 1, l.fits, l.fits
	default:
		t.rest, t.restFits = int32(i), l.fits
		if room := x.threshold*l.capacity - l.used*100; room >= 0 { // medium
			// It stays at or below the threshold with mb more iff
			// mb*100 <= room: iff mb <= room/100.
			t.med, t.maxQ = int32(i), min(l.fits, room/100)
		}
	}
	return t
}

func (x *packedIndex) join(a, b ptree) ptree {
	out := ptree{med: a.med, maxQ: max(a.maxQ, b.maxQ), rest: a.rest, restFits: max(a.restFits, b.restFits),
		lows: a.lows + b.lows, lowMin: min(a.lowMin, b.lowMin), lowMax: max(a.lowMax, b.lowMax)}
	if a.med < 0 || (b.med >= 0 && x.fuller(int(b.med), int(a.med))) {
		out.med = b.med
	}
	if a.rest < 0 || (b.rest >= 0 && x.spread.before(int(b.rest), int(a.rest))) {
		out.rest = b.rest
	}
	return out
}

// fuller is packed's step-1 order: higher usage first (fuller), then the
// lower index.
func (x *packedIndex) fuller(i, j int) bool {
	a, b := &x.nodes[i], &x.nodes[j]
	l, r := a.used*b.capacity, b.used*a.capacity
	return l > r || (l == r && i < j)
}

func (x *packedIndex) Choose(req Request) (int, bool, bool) {
	if len(req.Preferred) > 0 || len(req.Types) > 0 {
		return -1, false, false
	}
	if max(x.n, req.ClusterNodes) < x.minNodes {
		return x.spread.Choose(req)
	}
	if req.MemoryMB < 0 || x.n == 0 {
		return -1, false, true
	}
	mb := req.MemoryMB
	if i := x.fullestMedium(mb); i >= 0 {
		return i, true, true
	}
	if n := x.countLows(1, mb); n > 0 {
		i := x.nthLow(mb, pick(req.Seed, n))
		return i, i >= 0, true
	}
	i := x.emptiestRest(mb)
	return i, i >= 0, true
}

// fullestMedium is step 1: the fullest medium node that takes mb and stays
// at or below the threshold (-1: none).
func (x *packedIndex) fullestMedium(mb int64) int {
	found := -1
	x.stack = append(x.stack[:0], 1)
	for len(x.stack) > 0 {
		s := x.stack[len(x.stack)-1]
		x.stack = x.stack[:len(x.stack)-1]
		t := x.tree[s]
		if t.med < 0 || t.maxQ < mb || (found >= 0 && !x.fuller(int(t.med), found)) {
			continue
		}
		if x.tree[x.leaves+int(t.med)].maxQ >= mb {
			found = int(t.med) // the subtree's best qualifies: nothing in it beats it
			continue
		}
		l, r := 2*s, 2*s+1
		if x.tree[l].med >= 0 && (x.tree[r].med < 0 || x.fuller(int(x.tree[l].med), int(x.tree[r].med))) {
			l, r = r, l // the better child is looked at first (pushed last)
		}
		x.stack = append(x.stack, l, r)
	}
	return found
}

// countLows counts the low nodes under subtree s that fit mb.
func (x *packedIndex) countLows(s int, mb int64) int {
	t := &x.tree[s]
	switch {
	case t.lows == 0 || t.lowMax < mb:
		return 0
	case t.lowMin >= mb:
		return int(t.lows)
	}
	return x.countLows(2*s, mb) + x.countLows(2*s+1, mb)
}

// nthLow is step 2: the k-th (from 0) low node that fits mb, in index
// order (-1: fewer).
func (x *packedIndex) nthLow(mb int64, k int) int {
	s := 1
	for s < x.leaves {
		if c := x.countLows(2*s, mb); k < c {
			s = 2 * s
		} else {
			k -= c
			s = 2*s + 1
		}
	}
	if k != 0 || x.countLows(s, mb) == 0 {
		return -1
	}
	return s - x.leaves
}

// emptiestRest is step 3: the emptiest node with usage that fits mb.
func (x *packedIndex) emptiestRest(mb int64) int {
	found := -1
	x.stack = append(x.stack[:0], 1)
	for len(x.stack) > 0 {
		s := x.stack[len(x.stack)-1]
		x.stack = x.stack[:len(x.stack)-1]
		t := x.tree[s]
		if t.rest < 0 || t.restFits < mb || (found >= 0 && !x.spread.before(int(t.rest), found)) {
			continue
		}
		if x.nodes[t.rest].fits >= mb {
			found = int(t.rest)
			continue
		}
		l, r := 2*s, 2*s+1
		if x.tree[l].rest >= 0 && (x.tree[r].rest < 0 || x.spread.before(int(x.tree[l].rest), int(x.tree[r].rest))) {
			l, r = r, l
		}
		x.stack = append(x.stack, l, r)
	}
	return found
}
