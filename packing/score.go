package packing

import (
	"strconv"
	"time"
)

// The scores below compare usage fractions UsedMB/CapacityMB without
// division: a/b > c/d is a*d > c*b for positive b and d. Products of
// megabyte counts stay far inside int64 (a 1 PB node is 1e9 MB; 1e9*1e9 =
// 1e18 < 9.2e18), so no float rounding can make two runs disagree.

// fits reports whether a node can take req now: its memory, and as much
// of each other resource type as it asks for. A node that reports no
// capacity is never chosen: its usage is undefined and it can hold
// nothing. Usage and bands stay memory's: the types only rule nodes out.
func fits(n *Node, req *Request) bool {
	// Small enough to inline: Choose calls it for every node.
	return n.CapacityMB > 0 && req.MemoryMB <= n.FitsMB && (len(req.Types) == 0 || typesFit(n.FreeTypes, req.Types))
}

// typesFit: free holds at least want of each type.
func typesFit(free, want map[string]int64) bool {
	for name, v := range want {
		if free[name] < v {
			return false
		}
	}
	return true
}

// Band is a node's usage band under the packed scheme, the one rule both
// the allocator and the status UI use: low when nothing runs on it,
// high above the threshold (ebb.packing.high.threshold.percent), medium
// between.
type Band int8

const (
	Low    Band = iota // usage 0
	Medium             // 0 < usage <= threshold
	High               // usage > threshold
)

func (b Band) String() string {
	switch b {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return "Band(" + strconv.Itoa(int(b)) + ")"
}

// BandOf puts a node using usedMB of capacityMB in its band. thresholdPct
// is a percentage, so usage > t% is usedMB*100 > t*capacityMB.
func BandOf(usedMB, capacityMB int64, thresholdPct int) Band {
	switch {
	case usedMB <= 0:
		return Low
	case usedMB*100 > int64(thresholdPct)*capacityMB:
		return High
	default:
		return Medium
	}
}

// categorize is BandOf for an allocator's node.
func categorize(n *Node, thresholdPct int64) Band {
	return BandOf(n.UsedMB, n.CapacityMB, int(thresholdPct))
}

// staysAtOrBelow reports whether a node is still at or below the threshold
// after taking mb more: (UsedMB+mb)*100 <= t*CapacityMB.
func staysAtOrBelow(n *Node, mb, thresholdPct int64) bool {
	return (n.UsedMB+mb)*100 <= thresholdPct*n.CapacityMB
}

// fuller reports whether a's usage is strictly higher than b's.
func fuller(a, b *Node) bool {
	return a.UsedMB*b.CapacityMB > b.UsedMB*a.CapacityMB
}

// emptier reports whether a's usage is strictly lower than b's.
func emptier(a, b *Node) bool {
	return fuller(b, a)
}

// candidate is the best node found so far in one step of a scan. Nodes
// are offered in index order and only a strictly better node replaces the
// current one, so ties go to the lowest index.
type candidate struct {
	i    int // -1: none yet
	pref bool
}

func noCandidate() candidate { return candidate{i: -1} }

// offer considers node i. A preferred node outranks any other; between two
// nodes of equal preference, before decides.
func (c *candidate) offer(nodes []Node, i int, pref bool, before func(a, b *Node) bool) {
	switch {
	case c.i < 0,
		pref && !c.pref,
		pref == c.pref && before(&nodes[i], &nodes[c.i]):
		c.i, c.pref = i, pref
	}
}

// locality is what a request's preferences allow right now.
type locality struct {
	prefs []string
	// strict: the request still waits for a preferred node, so no other
	// node is eligible.
	strict bool
}

func localityFor(req Request, delay time.Duration) locality {
	return locality{prefs: req.Preferred, strict: len(req.Preferred) > 0 && req.Waited < delay}
}

// preferred is a linear search: preference lists name a handful of nodes
// (the replicas of an input), and a map would cost an allocation per
// request.
func (l locality) preferred(id string) bool {
	for _, p := range l.prefs {
		if p == id {
			return true
		}
	}
	return false
}

// eligible reports whether node i may be used at all under l, and whether
// it is preferred.
func (l locality) eligible(id string) (ok, pref bool) {
	if len(l.prefs) == 0 {
		return true, false
	}
	pref = l.preferred(id)
	return pref || !l.strict, pref
}

// pick maps a seed to an index in [0, n) with splitmix64's finalizer, so
// nearby seeds (consecutive request numbers) land on unrelated indexes.
func pick(seed uint64, n int) int {
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}
