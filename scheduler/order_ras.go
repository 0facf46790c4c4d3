package scheduler

// ras is resource-aware scheduling with completion-time goals (Polo et
// al., Middleware 2011). Every control cycle the AM makes a RASPlan (Plan)
// from the DAGs' goals, observed task times and resource profiles: each
// DAG's s_req, and per node how many tasks of each DAG and kind it should
// hold (the paper's job slots). Between cycles ras is the paper's task
// scheduler: a node fills from the plan's job slots for that node, and
// among the DAGs with a planned slot free there and a task that fits, the
// lowest utility now goes first (utilities from the tasks each DAG runs at
// this moment and the s_req of the last plan). So the plan's pairing of
// CPU-bound and I/O-bound tasks on a node is what runs. A DAG with no
// planned slot free anywhere waits for the next plan (the AM makes one at
// once for a DAG or node the plan does not know), and a node's slots left
// unused by their DAG stay free until then: the plan decides, not the
// moment.
//
// The plan is a target (Plan): it may give a node's slots to another DAG
// than the one running there. Those attempts run on; as each ends its room
// goes to the DAGs the plan put on the node, since the DAG that ran there
// has no planned slot free on it (attrition). It never overloads a node:
// an attempt fits on a node only if its profile fits in what the node's
// running attempts leave of 1.0 CPU, memory and I/O, the node holds fewer
// tasks than the plan's cap, and a worker there has the memory. It never
// kills anything. Ties go to fifo order.
// Consumers are planned first and spread (stage 1 of Plan), so they follow
// the same rule. The node among a DAG's planned ones is the packing
// allocator's choice (Pick.Fits), so packed and uniform still differ.
type ras struct{}

func (ras) Name() string        { return "ras" }
func (ras) ResourceAware() bool { return true }

func (ras) Next(s *OrderSnapshot) (Pick, bool) {
	v := newRASView(s)
	fits := make([]bool, len(s.Nodes))
	best, bestU := -1, 0.0
	var bestFits []bool
	for i, h := range s.Heads {
		if !v.fits(h, fits) || !v.plannedFree(h, fits) {
			continue
		}
		if u := UtilityNow(h.DAG, h.Demand, s.Plan); best < 0 || u < bestU {
			best, bestU = i, u
			bestFits = append(bestFits[:0], fits...)
		}
	}
	if best < 0 {
		return Pick{}, false
	}
	return Pick{Head: best, Fits: bestFits}, true
}

// plannedFree narrows fits to the nodes where the plan has a slot of h's
// DAG and kind that its running attempts leave free, and reports whether
// any is left.
func (v rasView) plannedFree(h QueueHead, fits []bool) bool {
	k := rasSlotKey{h.DAG, h.Kind}
	some := false
	for i, n := range v.nodes {
		fits[i] = fits[i] && n.planned[k] > n.running[k]
		some = some || fits[i]
	}
	return some
}

// RASDemand is one DAG's tasks by kind at the moment a task order is
// asked: what its utility now is computed from.
type RASDemand struct {
	RunningProducers, QueuedProducers int
	RunningConsumers, QueuedConsumers int
}

// UtilityNow is a DAG's utility with the tasks it runs now (Utility), its
// s_req taken from the plan, or, for a DAG the plan does not know, all its
// unfinished producers (EstimateSReq without evidence).
func UtilityNow(dag string, d RASDemand, plan RASPlan) float64 {
	sPend := d.RunningProducers + d.QueuedProducers
	sReq := EstimateSReq(SReqInput{Pending: d.QueuedProducers, Running: d.RunningProducers})
	if dp, ok := plan.DAG(dag); ok {
		sReq = dp.SReq
	}
	return Utility(float64(d.RunningProducers), sReq, float64(sPend),
		float64(d.RunningConsumers), float64(d.RunningConsumers+d.QueuedConsumers))
}

// rasView is the snapshot's nodes summed up once per Next: load, task
// count, consumers and, per (DAG, kind) the plan has slots for, running
// and planned tasks. A node with no free memory takes nothing, so it is
// not summed.
type rasView struct {
	nodes    []rasNodeView
	maxTasks int
}

type rasNodeView struct {
	fitsMB           int64
	load             Profile
	tasks            int
	consumers        map[string]int     // running consumers by DAG
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
			if a.Kind == RASConsumer {
				if nv.consumers == nil {
					nv.consumers = map[string]int{}
				}
				nv.consumers[a.DAG]++
			}
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
