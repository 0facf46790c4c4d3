package core

import (
	"sort"
	"time"
)

// DAGStatus is a DAG's progress as clients and the status page see it.
type DAGStatus struct {
	ID          string
	Name        string
	State       DAGState
	Diagnostics string
	Group       string
	Output      string
	Submit      time.Time
	Finish      time.Time
	Goal        time.Time
	TotalTasks  int
	Succeeded   int
	Running     int
	Failed      int
	// Recovered: rebuilt by a new AM attempt from the recovery log.
	Recovered bool
	// Compacted: a finished DAG the Core keeps only as this summary
	// (retain.go): no vertices, no attempts.
	Compacted bool
	Vertices  []VertexStatus
	// Speculation: the DAG's backup attempts and their races.
	Speculation SpeculationCounts
	// SlowNodes: the nodes where the DAG's attempts straggled, sorted
	// (slownodes.go): no backup and, while others have room, no later
	// attempt of the DAG goes there.
	SlowNodes []string
	// Resource-aware scheduling figures (zero unless ebb.scheduler.scheme=ras).
	SReq    float64
	Utility float64
	Slots   int
	// Counters: the sums of its vertices' counters (counters.go).
	Counters []Counter
}

// VertexStatus is one vertex's progress.
type VertexStatus struct {
	Name      string
	Total     int
	Succeeded int
	Running   int
	// Counters: the sums of its succeeded tasks' counters.
	Counters []Counter
}

// TaskProgress is the one definition of progress: the share of total
// tasks that succeeded, 0..1, and 0 when there are none. The status UI, its
// DAG drawing and the progress the AM reports to the RM all call it.
func TaskProgress(succeeded, total int) float64 {
	if total <= 0 {
		return 0
	}
	return float64(succeeded) / float64(total)
}

// Progress is the DAG's TaskProgress.
func (s DAGStatus) Progress() float64 { return TaskProgress(s.Succeeded, s.TotalTasks) }

// RunningProgress is the TaskProgress of the DAGs still running taken
// together, 1 when none runs (a session waiting for work has nothing left
// to do): what the AM reports to the RM.
func RunningProgress(dags []DAGStatus) float64 {
	var done, total int
	for _, d := range dags {
		if !d.State.Done() {
			done += d.Succeeded
			total += d.TotalTasks
		}
	}
	if total == 0 {
		return 1
	}
	return TaskProgress(done, total)
}

func (c *Core) status(d *dagRun) DAGStatus {
	s := DAGStatus{
		ID:          d.id,
		Name:        d.spec.Name,
		State:       d.state,
		Diagnostics: d.diagnostics(),
		Group:       d.group.info.Name,
		Output:      d.sub.Output,
		Submit:      d.submit,
		Finish:      d.finish,
		Running:     d.running,
		Failed:      d.failed,
		Recovered:   d.recovered,
		Speculation: d.speculation,
		SlowNodes:   d.slowNodeList(),
	}
	if t, ok := d.spec.Goal.Deadline(d.submit); ok {
		s.Goal = t
	}
	if c.rasPlan != nil {
		if p, ok := c.rasPlan.DAG(d.id); ok {
			s.SReq, s.Utility, s.Slots = p.SReq, p.Utility, p.Producers+p.Consumers
		}
	}
	for _, v := range d.vertices {
		vs := VertexStatus{Name: v.spec.Name, Total: len(v.tasks), Succeeded: v.succeeded, Counters: v.counterSums()}
		s.Counters = AddCounters(s.Counters, vs.Counters)
		for _, t := range v.tasks {
			if t.state == taskRunning {
				vs.Running++
			}
		}
		s.TotalTasks += vs.Total
		s.Succeeded += vs.Succeeded
		s.Vertices = append(s.Vertices, vs)
	}
	return s
}

// DAG returns a DAG's status.
func (c *Core) DAG(id string) (DAGStatus, bool) {
	d, ok := c.dags[id]
	if !ok {
		return c.summary(id)
	}
	return c.status(d), true
}

// DAGs returns every DAG the Core knows: the finished ones in the order
// they ended (compacted first), then the others in submission order.
func (c *Core) DAGs() []DAGStatus {
	out := make([]DAGStatus, 0, len(c.dags)+len(c.summaries.order))
	for _, s := range c.summaries.order {
		out = append(out, *s)
	}
	for _, d := range c.ended {
		out = append(out, c.status(d))
	}
	for _, d := range c.active {
		out = append(out, c.status(d))
	}
	return out
}

// GroupStatus is one ContainerGroup as operators see it.
type GroupStatus struct {
	Name            string
	State           string
	UsagePercent    float64
	Workers         int
	PendingWorkers  int
	Nodes           int
	QueuedAttempts  int
	RunningAttempts int
	RunningMB       int64
	OfferedMB       int64
	// NeedsWorkers: queued work wants more workers than the group has;
	// for an autoscaled group, as its last step estimated the work in
	// sight (scheduler.Autoscaler.WantsWorkers).
	NeedsWorkers bool
	// Preempt: preemption warnings, give-backs and kills (preempt.go).
	Preempt PreemptCounts
	// TargetP95 is the latency target its autoscaler holds
	// (ebb.auto.scale.target.p95.slowdown, or `ebb autoscale --target`);
	// 0 when the group is not sized from the work in sight (target.go).
	TargetP95 float64
	// MeasuredP95 is the p95 slowdown of the latest MeasuredDAGs DAGs
	// that ended (at most 50; 0: none measured yet): what the target is
	// held against.
	MeasuredP95  float64
	MeasuredDAGs int
}

// Groups returns every group's status in creation order.
func (c *Core) Groups() []GroupStatus {
	var out []GroupStatus
	for _, g := range c.gorder {
		s := GroupStatus{Name: g.info.Name, State: "STABLE", Workers: len(g.workers), PendingWorkers: g.pending,
			Nodes: len(g.byNode), QueuedAttempts: g.queue.Len(), Preempt: c.PreemptCounts(g.info.Name)}
		for w := range g.workers {
			s.RunningAttempts += len(w.running)
			s.OfferedMB += w.info.MemoryMB
			s.RunningMB += w.info.MemoryMB - w.freeMB
		}
		if s.OfferedMB > 0 {
			s.UsagePercent = 100 * float64(s.RunningMB) / float64(s.OfferedMB)
		}
		s.NeedsWorkers = s.QueuedAttempts > 0
		if g.as != nil {
			s.NeedsWorkers = s.NeedsWorkers && g.as.wants
			s.State = g.as.a.State().String()
			if u, ok := g.as.a.Usage(); ok {
				s.UsagePercent = u // the window's figure, the one the autoscaler acts on
			}
			if c.targetUsed() {
				s.TargetP95 = g.as.a.Config().TargetSlowdown
			}
			s.MeasuredP95, s.MeasuredDAGs = g.as.a.MeasuredP95()
		}
		out = append(out, s)
	}
	return out
}

// NodeStatus is one node as operators see it.
type NodeStatus struct {
	ID         string
	CapacityMB int64
	UsedMB     int64
	Workers    int
	Draining   bool
	// Idle: no worker on the node runs an attempt or holds an output.
	Idle bool
	// State: as the cluster last reported it (nodestate.go); DrainBy:
	// when a decommissioning node's timeout ends (zero when none).
	State   NodeState
	DrainBy time.Time
}

// EachNodeID calls fn with the id of every node Nodes reports, in no
// order, without building their status: for a world that needs only the
// ids every tick (the sim's billing, where Nodes' sorting and status were
// a tenth of a replay's time).
func (c *Core) EachNodeID(fn func(id string)) {
	for id := range c.nodes {
		fn(id)
	}
	for id := range c.nodeConds {
		if _, ok := c.nodes[id]; !ok {
			fn(id)
		}
	}
}

// Nodes returns the nodes holding workers and those the cluster reports
// not RUNNING, by id.
func (c *Core) Nodes() []NodeStatus {
	var out []NodeStatus
	ids := sortedKeys(c.nodes)
	for _, id := range c.unusableNodes() {
		if _, ok := c.nodes[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		st := NodeStatus{ID: id, Idle: true}
		st.State, st.DrainBy = c.nodeCondOf(id)
		if n := c.nodes[id]; n != nil {
			for w := range n.workers {
				st.Idle = st.Idle && w.idle()
			}
			st.CapacityMB, st.UsedMB, st.Workers, st.Draining = n.capacityMB, n.usedMB, len(n.workers), n.draining
		}
		out = append(out, st)
	}
	return out
}
