package packing

import "math"

// An Index keeps an allocator's view of a node list between requests, so
// that a choice need not scan every node: uniform's scan was most of a
// placement at 10,000 workers (2,500 nodes a request). Its caller mirrors
// the list it would pass to Choose: Resize when the list grows or shrinks,
// Set for every entry that changed. Choose then answers exactly as the
// allocator's Choose over that list would, for the requests it covers;
// covered is false for the others (the caller scans).
type Index interface {
	Resize(n int)
	Set(i int, n Node)
	Choose(req Request) (index int, ok, covered bool)
}

// Indexer is an Allocator that can keep an Index.
type Indexer interface {
	NewIndex() Index
}

// NewIndex: uniform's index covers every request without a locality
// preference or resource types.
func (uniform) NewIndex() Index { return &spreadIndex{} }

// spreadIndex answers spread (the eligible fitting node with the lowest
// usage, ties to the lowest index) from a tournament tree over the nodes:
// each subtree keeps its lowest-usage node, ignoring fit, and the largest
// FitsMB among its nodes. A search goes down from the root and leaves a
// subtree when nothing in it fits or its lowest usage cannot beat the
// node already found, so when the emptiest nodes fit it reads O(log n)
// entries. Nodes without capacity (never chosen) count in neither.
type spreadIndex struct {
	tournament[subtree]
	stack []int32 // the search's, reused
}

// tournament is what both indexes keep: the node list and a tree of
// summaries S over it, each subtree's joined from its two halves. Each
// index has its own summary, leaf summary (leafTree) and join; fix, which
// every Set runs, stays the index's own so that its join inlines.
type tournament[S any] struct {
	n      int
	leaves int    // a power of two >= n
	nodes  []leaf // by node index
	tree   []S    // tree[1] is the root; tree[leaves+i] is node i
}

// resize makes room for n nodes (growing by doubling, so growing one by
// one costs O(1) a node, and rebuilding every summary with leafTree and
// join) and clears the entries past n with fix, so they count no more.
func (t *tournament[S]) resize(n int, leafTree func(int) S, join func(a, b S) S, fix func(int)) {
	if n > t.leaves {
		leaves := max(t.leaves, 1)
		for leaves < n {
			leaves *= 2
		}
		nodes := make([]leaf, leaves)
		copy(nodes, t.nodes)
		t.nodes, t.leaves = nodes, leaves
		t.tree = make([]S, 2*leaves)
		for i := range leaves {
			t.tree[leaves+i] = leafTree(i)
		}
		for s := leaves - 1; s >= 1; s-- {
			t.tree[s] = join(t.tree[2*s], t.tree[2*s+1])
		}
	}
	for i := n; i < t.n; i++ {
		t.nodes[i] = leaf{}
		fix(i)
	}
	t.n = n
}

type leaf struct {
	used, capacity, fits int64
}

type subtree struct {
	best    int32 // the node with the lowest usage (then index); -1: none with capacity
	maxFits int64 // the largest FitsMB of a node with capacity; math.MinInt64: none
}

var emptyTree = subtree{best: -1, maxFits: math.MinInt64}

func (x *spreadIndex) Resize(n int) { x.resize(n, x.leafTree, x.join, x.fix) }

func (x *spreadIndex) Set(i int, n Node) {
	x.nodes[i] = leaf{used: n.UsedMB, capacity: n.CapacityMB, fits: n.FitsMB}
	x.fix(i)
}

// fix recomputes node i's leaf and the subtrees above it.
func (x *spreadIndex) fix(i int) {
	s := x.leaves + i
	x.tree[s] = x.leafTree(i)
	for s /= 2; s >= 1; s /= 2 {
		x.tree[s] = x.join(x.tree[2*s], x.tree[2*s+1])
	}
}

func (x *spreadIndex) leafTree(i int) subtree {
	if l := x.nodes[i]; l.capacity > 0 {
		return subtree{best: int32(i), maxFits: l.fits}
	}
	return emptyTree
}

func (x *spreadIndex) join(a, b subtree) subtree {
	out := subtree{best: a.best, maxFits: max(a.maxFits, b.maxFits)}
	if a.best < 0 || (b.best >= 0 && x.before(int(b.best), int(a.best))) {
		out.best = b.best
	}
	return out
}

// before is spread's order: lower usage first (emptier: UsedMB/CapacityMB
// compared without division), then the lower index.
func (x *spreadIndex) before(i, j int) bool {
	a, b := &x.nodes[i], &x.nodes[j]
	l, r := a.used*b.capacity, b.used*a.capacity
	return l < r || (l == r && i < j)
}

func (x *spreadIndex) Choose(req Request) (int, bool, bool) {
	if len(req.Preferred) > 0 || len(req.Types) > 0 {
		return -1, false, false
	}
	if req.MemoryMB < 0 || x.n == 0 {
		return -1, false, true
	}
	found := -1
	x.stack = append(x.stack[:0], 1)
	for len(x.stack) > 0 {
		s := x.stack[len(x.stack)-1]
		x.stack = x.stack[:len(x.stack)-1]
		t := x.tree[s]
		if t.best < 0 || t.maxFits < req.MemoryMB || (found >= 0 && !x.before(int(t.best), found)) {
			continue // nothing here fits, or nothing here beats found
		}
		if x.nodes[t.best].fits >= req.MemoryMB {
			found = int(t.best) // the subtree's best fits: nothing in it beats it
			continue
		}
		// Look at the child holding the better node first (pushed last),
		// so the other is more often left at once.
		l, r := 2*s, 2*s+1
		if x.tree[l].best >= 0 && (x.tree[r].best < 0 || x.before(int(x.tree[l].best), int(x.tree[r].best))) {
			l, r = r, l
		}
		x.stack = append(x.stack, l, r)
	}
	return found, found >= 0, true
}
