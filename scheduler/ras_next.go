package scheduler

import "math"

// RASCandidate is a DAG with a runnable task of one kind, and the profile
// that task would use if it started now (a consumer's shuffle profile while
// its DAG's producers run, its reduce profile after).
type RASCandidate struct {
	DAG     string
	Kind    RASKind
	Profile Profile
}

// NextDAG is the plan's enforcement: when room frees on a node (an attempt
// finished, a worker joined), which candidate should start there next. It
// never overloads the node: only candidates whose profile fits in what the
// node's running attempts leave of 1.0 CPU, memory and I/O, and within the
// plan's task cap, are considered. It never kills anything; the plan takes
// effect as attempts finish. Of those that fit it picks, in order:
//  1. one whose (DAG, kind) is below its planned slots on this node, the
//     furthest below first;
//  2. then the lowest utility in the plan; a DAG that arrived after the plan
//     has none and counts as UtilityFloor, so it does not wait a whole
//     control cycle for its first task (and comes after older DAGs);
//  3. then submission order, then DAG ID, consumers before producers.
//
// When no candidate is below plan, the room is still used (the plan is a
// cycle old and capacity left idle is lost), but producers go before
// consumers, whose placement was deliberately spread. ok is false when
// nothing fits.
//
// The AM calls it repeatedly, adding each started attempt to
// node.Running, until ok is false.
func NextDAG(plan RASPlan, node RASNode, candidates []RASCandidate) (RASCandidate, bool) {
	maxTasks := plan.MaxTasksPerNode
	if maxTasks <= 0 {
		maxTasks = defaultRASMaxTasksPerNode
	}
	if len(node.Running) >= maxTasks {
		return RASCandidate{}, false
	}
	var load Profile
	running := map[rasSlotKey]int{}
	for _, a := range node.Running {
		load = load.add(a.Profile.sanitized())
		running[rasSlotKey{a.DAG, a.Kind}]++
	}
	planned := map[rasSlotKey]int{}
	if np, ok := plan.node(node.ID); ok {
		for _, sl := range np.Slots {
			planned[rasSlotKey{sl.DAG, sl.Kind}] = sl.Planned
		}
	}
	var best rasChoice
	found := false
	for _, c := range candidates {
		if !c.Profile.sanitized().fitsOn(load) {
			continue
		}
		k := rasSlotKey{c.DAG, c.Kind}
		ch := rasChoice{c: c, deficit: planned[k] - running[k], utility: UtilityFloor, order: math.MaxInt}
		if d, ok := plan.DAG(c.DAG); ok {
			ch.utility, ch.order = d.Utility, d.Order
		}
		if !found || ch.before(best) {
			best, found = ch, true
		}
	}
	return best.c, found
}

type rasChoice struct {
	c       RASCandidate
	deficit int // planned minus running on this node, for (DAG, kind)
	utility float64
	order   int
}

// before says whether a should start before b; see NextDAG for the rules.
func (a rasChoice) before(b rasChoice) bool {
	if (a.deficit > 0) != (b.deficit > 0) {
		return a.deficit > 0
	}
	if a.deficit > 0 && a.deficit != b.deficit {
		return a.deficit > b.deficit
	}
	if a.deficit <= 0 && a.c.Kind != b.c.Kind {
		return a.c.Kind == RASProducer // unplanned room: keep consumers spread
	}
	if a.utility != b.utility {
		return a.utility < b.utility
	}
	if a.order != b.order {
		return a.order < b.order
	}
	if a.c.DAG != b.c.DAG {
		return a.c.DAG < b.c.DAG
	}
	return a.c.Kind == RASConsumer && b.c.Kind == RASProducer
}
