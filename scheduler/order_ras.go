package scheduler

// ras is resource-aware scheduling with completion-time goals (Polo et
// al., Middleware 2011). Every control cycle the AM makes a RASPlan (Plan)
// from the DAGs' goals, observed task times and resource profiles: each
// DAG's s_req, and per node how many tasks of each DAG and kind it should
// hold (the paper's job slots). Between cycles ras is the paper's task
// scheduler: the lowest utility now whose task fits goes first (utilities
// from the tasks each DAG runs at this moment and the s_req of the last
// plan), and it goes to the nodes where the plan has a slot of its DAG and
// kind free, so the plan's pairing of CPU-bound and I/O-bound tasks on a
// node is what runs. Only a DAG with no planned slot free where its task
// fits may go to any node where it fits: the plan keeps running attempts
// where they are and counts them as planned, so on a full cluster it gives
// a DAG that arrived (or fell behind its goal) after the last cycle no
// slot, and the paper's attrition, freed slots going to the lowest
// utility, is what moves the cluster towards it.
//
// It never overloads a node: an attempt fits on a node only if its profile
// fits in what the node's running attempts leave of 1.0 CPU, memory and
// I/O, the node holds fewer tasks than the plan's cap, and a worker there
// has the memory. It never kills anything. Ties go to fifo order.
// Consumers are planned first and spread (stage 1 of Plan), and follow the
// same rule. The node among those allowed is the packing allocator's
// choice (Pick.Fits), so packed and uniform still differ.
type ras struct{}

func (ras) Name() string        { return "ras" }
func (ras) ResourceAware() bool { return true }

func (ras) Next(s *OrderSnapshot) (Pick, bool) {
	v := newRASView(s)
	fits := make([]bool, len(s.Nodes))
	best, bestU := -1, 0.0
	for i, h := range s.Heads {
		if !v.fits(h, fits) {
			continue
		}
		if u := UtilityNow(h.DAG, h.Demand, s.Plan); best < 0 || u < bestU {
			best, bestU = i, u
		}
	}
	if best < 0 {
		return Pick{}, false
	}
	v.fits(s.Heads[best], fits)
	planned := append([]bool(nil), fits...)
	h := s.Heads[best]
	switch {
	case v.plannedFree(h, planned):
		fits = planned
	case h.Kind == RASConsumer:
		v.spreadConsumers(h.DAG, fits, false)
	}
	return Pick{Head: best, Fits: fits}, true
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

// spreadConsumers narrows fits for a consumer of dag: to the plan's nodes
// for it when planned (some fit and the plan wants more there), else to
// the nodes with the fewest of dag's consumers, then the fewest of any
// DAG's, as stage 1 of Plan spreads them.
func (v rasView) spreadConsumers(dag string, fits []bool, planned bool) {
	k := rasSlotKey{dag, RASConsumer}
	best := [2]int{-1, -1}
	for i, n := range v.nodes {
		if !fits[i] {
			continue
		}
		if planned {
			fits[i] = n.planned[k] > n.running[k]
			continue
		}
		total := 0
		for _, c := range n.consumers {
			total += c
		}
		key := [2]int{n.consumers[dag], total}
		if best[0] < 0 || key[0] < best[0] || key[0] == best[0] && key[1] < best[1] {
			best = key
		}
	}
	if planned {
		return
	}
	for i, n := range v.nodes {
		if !fits[i] {
			continue
		}
		total := 0
		for _, c := range n.consumers {
			total += c
		}
		fits[i] = n.consumers[dag] == best[0] && total == best[1]
	}
}
