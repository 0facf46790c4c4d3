package scheduler

// ras is resource-aware scheduling with completion-time goals (Polo et
// al., Middleware 2011). Every control cycle the AM makes a RASPlan (Plan)
// from the DAGs' goals, observed task times and resource profiles: each
// DAG's s_req, and where its consumers (reduces) should sit. Between
// cycles ras is the paper's task scheduler: a freed slot goes to the
// lowest-utility DAG whose next task fits, utilities taken now, from the
// tasks each DAG runs at this moment and the s_req of the last plan. It
// never overloads a node: an attempt fits on a node only if its profile
// fits in what the node's running attempts leave of 1.0 CPU, memory and
// I/O, the node holds fewer tasks than the plan's cap, and a worker there
// has the memory. It never kills anything, so DAGs move from one placement
// to the next by attrition, as attempts finish.
//
// A DAG the plan does not know yet (it arrived after the last cycle) has
// no evidence of its task times, so its s_req is all its unfinished
// producers: it is as far below its goal as a DAG can be and takes freed
// slots until its utility passes another's. Ties go to fifo order.
//
// Consumers go where the plan put them when one of those nodes has room;
// else, as the plan spreads them, to the nodes holding the fewest of the
// DAG's consumers, then the fewest consumers of any DAG. The node among
// those allowed is the packing allocator's choice (Pick.Fits); the nodes
// where the plan wants more of the DAG's tasks of this kind are only
// ranked first (Pick.Preferred), so packed and uniform place differently
// under ras too.
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
	h := s.Heads[best]
	v.fits(h, fits)
	p := Pick{Head: best, Fits: fits}
	k := rasSlotKey{h.DAG, h.Kind}
	for i, n := range v.nodes {
		if fits[i] && n.planned[k] > n.running[k] {
			p.Preferred = append(p.Preferred, s.Nodes[i].ID)
		}
	}
	if h.Kind == RASConsumer {
		v.spreadConsumers(h.DAG, fits, p.Preferred != nil)
	}
	return p, true
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
