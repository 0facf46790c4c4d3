package packing

import "time"

// packed concentrates requests on few nodes so that the others drain and
// the autoscaler can give them back. It tries three steps in order and
// takes the first that has an eligible node:
//
//  1. medium nodes (0 < usage <= threshold) that stay at or below the
//     threshold after taking the request, fullest first;
//  2. low nodes (usage 0), one chosen at random from the request's seed,
//     so that two AMs (or two groups) do not all pile onto node 0 and a
//     run replays exactly;
//  3. every other node that fits, emptiest first: high nodes, and medium
//     nodes that the request would push over the threshold.
//
// Step 3 goes beyond "high nodes" on purpose: without it a cluster whose
// nodes all sit just below the threshold would refuse requests it has
// room for. Ties go to the lowest index. Preferred nodes rank first within
// each step (and are the only eligible ones during the locality delay).
type packed struct {
	threshold int64 // percent
	minNodes  int
	delay     time.Duration
}

func (packed) Name() string { return "packed" }

func (p packed) Choose(nodes []Node, req Request) (int, bool) {
	if max(len(nodes), req.ClusterNodes) < p.minNodes {
		// Too few nodes to leave any empty: packing would only make
		// hot spots.
		return spread(nodes, req, p.delay)
	}
	if req.MemoryMB < 0 {
		return -1, false
	}
	loc := localityFor(req, p.delay)
	med, rest := noCandidate(), noCandidate()
	lows, prefLows := 0, 0
	for i := range nodes {
		n := &nodes[i]
		if !fits(n, &req) {
			continue
		}
		ok, pref := loc.eligible(n.ID)
		if !ok {
			continue
		}
		switch categorize(n, p.threshold) {
		case Low:
			lows++
			if pref {
				prefLows++
			}
		case Medium:
			if staysAtOrBelow(n, req.MemoryMB, p.threshold) {
				med.offer(nodes, i, pref, fuller)
			} else {
				rest.offer(nodes, i, pref, emptier)
			}
		case High:
			rest.offer(nodes, i, pref, emptier)
		}
	}
	switch {
	case med.i >= 0:
		return med.i, true
	case lows > 0:
		n := lows
		if prefLows > 0 {
			n = prefLows
		}
		i := p.nthLow(nodes, req, loc, prefLows > 0, pick(req.Seed, n))
		return i, i >= 0
	case rest.i >= 0:
		return rest.i, true
	}
	return -1, false
}

// nthLow returns the index of the k-th (from 0) eligible low node that
// fits, counting only preferred ones when onlyPref. It repeats the first
// scan's tests, so k is in range unless nodes changed under us (then -1).
// A second pass costs less than remembering the low nodes, which would
// allocate per request.
func (p packed) nthLow(nodes []Node, req Request, loc locality, onlyPref bool, k int) int {
	for i := range nodes {
		n := &nodes[i]
		if !fits(n, &req) || categorize(n, p.threshold) != Low {
			continue
		}
		ok, pref := loc.eligible(n.ID)
		if !ok || (onlyPref && !pref) {
			continue
		}
		if k == 0 {
			return i
		}
		k--
	}
	return -1
}
