package packing

import "time"

// uniform spreads requests: the eligible node with the lowest usage that
// fits, ties to the lowest index. This is what YARN's own placement does,
// and what packed falls back to on a cluster too small to pack.
type uniform struct {
	delay time.Duration
}

func (uniform) Name() string { return "uniform" }

func (u uniform) Choose(nodes []Node, req Request) (int, bool) {
	return spread(nodes, req, u.delay)
}

// spread is uniform's choice, shared with packed below its minimum size.
func spread(nodes []Node, req Request, delay time.Duration) (int, bool) {
	if req.MemoryMB < 0 {
		return -1, false
	}
	loc := localityFor(req, delay)
	best := noCandidate()
	for i := range nodes {
		n := &nodes[i]
		if !fits(n, &req) {
			continue
		}
		ok, pref := loc.eligible(n.ID)
		if !ok {
			continue
		}
		best.offer(nodes, i, pref, emptier)
	}
	return best.i, best.i >= 0
}
