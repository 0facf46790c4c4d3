package scheduler

import "math"

// ras is resource-aware scheduling with completion-time goals (Polo et
// al., Middleware 2011). Every control cycle the AM makes a RASPlan (Plan)
// from the DAGs' goals, observed task times and resource profiles; between
// cycles ras enforces it as room frees. It never overloads a node: an
// attempt fits on a node only if its profile fits in what the node's
// running attempts leave of 1.0 CPU, memory and I/O, the node holds fewer
// tasks than the plan's cap, and a worker there has the memory. It never
// kills anything; the plan takes effect as attempts finish.
//
// Of the heads that fit on some node it picks, in order:
//  1. one whose (DAG, kind) is below its planned slots on the nodes where
//     it fits, the furthest below first;
//  2. then the lowest utility in the plan; a DAG that arrived after the plan
//     has none and counts as UtilityFloor, so it does not wait a whole
//     control cycle for its first task (and comes after older DAGs);
//  3. then submission order, then DAG ID, consumers before producers.
//
// When no head is below plan, the room is still used (the plan is a cycle
// old and capacity left idle is lost), but producers go before consumers,
// whose placement was deliberately spread.
//
// The node is the packing allocator's choice among those where the
// attempt fits (Pick.Fits); the nodes where the plan wants the attempt are
// only ranked first (Pick.Preferred), so packed and uniform place
// differently under ras too.
type ras struct{}

func (ras) Name() string        { return "ras" }
func (ras) ResourceAware() bool { return true }

func (ras) Next(s *OrderSnapshot) (Pick, bool) {
	v := newRASView(s)
	fits := make([]bool, len(s.Nodes))
	best, found := rasChoice{}, false
	for i, h := range s.Heads {
		if !v.fits(h, fits) {
			continue
		}
		c := rasChoice{head: i, dag: h.DAG, kind: h.Kind, deficit: v.deficit(h, fits), utility: UtilityFloor, order: math.MaxInt}
		if d, ok := s.Plan.DAG(h.DAG); ok {
			c.utility, c.order = d.Utility, d.Order
		}
		if !found || c.before(best) {
			best, found = c, true
		}
	}
	if !found {
		return Pick{}, false
	}
	h := s.Heads[best.head]
	v.fits(h, fits)
	p := Pick{Head: best.head, Fits: fits}
	k := rasSlotKey{h.DAG, h.Kind}
	for i, n := range v.nodes {
		if fits[i] && n.planned[k] > n.running[k] {
			p.Preferred = append(p.Preferred, s.Nodes[i].ID)
		}
	}
	return p, true
}

// rasView is the snapshot's nodes summed up once per Next: load, task
// count and, per (DAG, kind) the plan has slots for, running and planned
// tasks. A node with no free memory takes nothing, so it is not summed.
type rasView struct {
	nodes    []rasNodeView
	maxTasks int
}

type rasNodeView struct {
	fitsMB           int64
	load             Profile
	tasks            int
	running, planned map[rasSlotKey]int // nil when the plan has no slots there
}

func newRASView(s *OrderSnapshot) rasView {
	v := rasView{maxTasks: s.Plan.MaxTasksPerNode, nodes: make([]rasNodeView, len(s.Nodes))}
	if v.maxTasks <= 0 {
		v.maxTasks = defaultRASMaxTasksPerNode
	}
	var plans map[string][]RASSlot
	for i, n := range s.Nodes {
		nv := &v.nodes[i]
		nv.fitsMB = n.FitsMB
		if n.FitsMB <= 0 {
			continue
		}
		if plans == nil {
			plans = make(map[string][]RASSlot, len(s.Plan.Nodes))
			for _, np := range s.Plan.Nodes {
				plans[np.ID] = np.Slots
			}
		}
		nv.tasks = len(n.Running)
		for _, a := range n.Running {
			nv.load = nv.load.add(a.Profile.sanitized())
		}
		slots := plans[n.ID]
		if len(slots) == 0 {
			continue
		}
		nv.planned = make(map[rasSlotKey]int, len(slots))
		nv.running = make(map[rasSlotKey]int, len(slots))
		for _, sl := range slots {
			nv.planned[rasSlotKey{sl.DAG, sl.Kind}] = sl.Planned
		}
		for _, a := range n.Running {
			if k := (rasSlotKey{a.DAG, a.Kind}); nv.planned[k] > 0 {
				nv.running[k]++
			}
		}
	}
	return v
}

// fits fills out with where h may start and reports whether anywhere.
func (v rasView) fits(h QueueHead, out []bool) bool {
	p := h.Profile.sanitized()
	some := false
	for i, n := range v.nodes {
		out[i] = n.fitsMB > 0 && h.MemoryMB <= n.fitsMB && n.tasks < v.maxTasks && p.fitsOn(n.load)
		some = some || out[i]
	}
	return some
}

// deficit is how many more of h's (DAG, kind) the plan wants on the nodes
// where h fits.
func (v rasView) deficit(h QueueHead, fits []bool) int {
	k := rasSlotKey{h.DAG, h.Kind}
	d := 0
	for i, n := range v.nodes {
		if fits[i] {
			d += max(n.planned[k]-n.running[k], 0)
		}
	}
	return d
}

type rasChoice struct {
	head    int
	dag     string
	kind    RASKind
	deficit int // planned minus running, on the nodes where the head fits
	utility float64
	order   int
}

// before says whether a should start before b; see ras for the rules.
func (a rasChoice) before(b rasChoice) bool {
	if (a.deficit > 0) != (b.deficit > 0) {
		return a.deficit > 0
	}
	if a.deficit > 0 && a.deficit != b.deficit {
		return a.deficit > b.deficit
	}
	if a.deficit <= 0 && a.kind != b.kind {
		return a.kind == RASProducer // unplanned room: keep consumers spread
	}
	if a.utility != b.utility {
		return a.utility < b.utility
	}
	if a.order != b.order {
		return a.order < b.order
	}
	if a.dag != b.dag {
		return a.dag < b.dag
	}
	return a.kind == RASConsumer && b.kind == RASProducer
}
