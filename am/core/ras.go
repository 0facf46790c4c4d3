package core

import (
	"sort"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/scheduler"
)

// Resource-aware scheduling (ebb.scheduler.scheme=ras): every control
// cycle the core plans how many concurrent tasks each DAG should run from
// its completion-time goal, observed task times and the resource profiles
// (scheduler.Plan) as a target: job slots per node for every unfinished
// task, running attempts counted against their DAG's slots where they run.
// Between cycles the ras task order gives free room, among the DAGs with a
// planned slot free on a node, to the lowest utility now (its running tasks
// against the plan's s_req; rasDemand counts them), and the packing
// allocator chooses among those nodes. Nothing is killed: attempts the plan
// gives no slot run on and their room goes to the planned DAGs as they end
// (attrition). No node is loaded past its CPU, memory or I/O under the
// profiles, so the number of concurrent tasks per worker ("job slots")
// follows from the profiles.

// rasKind: tasks reading a scatter-gather edge are consumers (the reduce
// side); all others are producers.
func (v *vertexRun) rasKind() scheduler.RASKind {
	for _, e := range v.in {
		if e.typ == dag.ScatterGather {
			return scheduler.RASConsumer
		}
	}
	return scheduler.RASProducer
}

// observed records a succeeded attempt's run time: per vertex, for the
// autoscaler's estimate of the work left (estimate.go); and producers'
// times are the evidence s_req is estimated from (the paper's mean map
// time), so a long reduce does not make a DAG look slower than its maps are.
func (d *dagRun) observed(v *vertexRun, took time.Duration) {
	v.doneTime += took
	v.doneN++
	v.doneMax = max(v.doneMax, took)
	if took > 0 {
		v.doneRates = append(v.doneRates, 1/took.Seconds())
	}
	if v.rasKind() == scheduler.RASProducer {
		d.producerTime += took
		d.producersDone++
	}
}

// rasDemand counts, for each DAG queued in g, its running and queued tasks
// by kind: what the ras order computes utilities from. One sweep per
// placement pass; place keeps it current as attempts start.
func rasDemand(g *group) map[*dagRun]*scheduler.RASDemand {
	out := make(map[*dagRun]*scheduler.RASDemand, len(g.queue.dags))
	for _, d := range g.queue.dags {
		dm := &scheduler.RASDemand{}
		for _, v := range d.vertices {
			run, queued := &dm.RunningProducers, &dm.QueuedProducers
			if v.rasKind() == scheduler.RASConsumer {
				run, queued = &dm.RunningConsumers, &dm.QueuedConsumers
			}
			for _, t := range v.tasks {
				switch t.state {
				case taskRunning:
					*run++
				case taskQueued:
					*queued++
				}
			}
		}
		out[d] = dm
	}
	return out
}

// rasStarted moves one task of v from queued to running in dm.
func rasStarted(dm *scheduler.RASDemand, v *vertexRun) {
	if v.rasKind() == scheduler.RASConsumer {
		dm.QueuedConsumers--
		dm.RunningConsumers++
		return
	}
	dm.QueuedProducers--
	dm.RunningProducers++
}

func toProfile(p *dag.Profile) scheduler.Profile {
	if p == nil {
		return scheduler.Profile{}
	}
	return scheduler.Profile{CPU: p.CPU, Memory: p.Memory, IO: p.IO}
}

// rasCycle re-plans when the control cycle has passed, no plan exists, or
// the plan does not know a running DAG or a node. The ras order starts
// only what the plan gives a slot, so a DAG or node newer than the plan
// would otherwise sit idle until the cycle ends.
func (c *Core) rasCycle() {
	if !c.opts.Tasks.ResourceAware() {
		return
	}
	if c.rasPlan != nil && c.now.Sub(c.rasPlan.At) < c.opts.RASCycle && c.rasPlanKnowsAll() {
		return
	}
	p := scheduler.Plan(c.now, c.rasSnapshot())
	c.rasPlan = &p
}

// rasPlanKnowsAll reports whether the plan has every node and every
// running DAG, which rasSnapshot gives it.
func (c *Core) rasPlanKnowsAll() bool {
	known := make(map[string]bool, len(c.rasPlan.Nodes)+len(c.rasPlan.DAGs))
	for _, n := range c.rasPlan.Nodes {
		known["n/"+n.ID] = true
	}
	for _, d := range c.rasPlan.DAGs {
		known["d/"+d.ID] = true
	}
	for id := range c.nodes {
		if !known["n/"+id] {
			return false
		}
	}
	for _, d := range c.active {
		if d.state == DAGRunning && !known["d/"+d.id] {
			return false
		}
	}
	return true
}

// rasAttempt is a running attempt as the ras planner and order see it.
func rasAttempt(a *attemptRun) scheduler.RASAttempt {
	return scheduler.RASAttempt{DAG: a.task.vertex.dag.id, Kind: a.task.vertex.rasKind(), Profile: toProfile(a.profile)}
}

// runningOn lists the attempts running on n, in no particular order.
func runningOn(n *nodeRun) []scheduler.RASAttempt {
	var out []scheduler.RASAttempt
	for w := range n.workers {
		for _, a := range w.running {
			out = append(out, rasAttempt(a))
		}
	}
	return out
}

// rasNode is n for the planner, its attempts sorted so that a snapshot
// always gives the same plan.
func (c *Core) rasNode(n *nodeRun) scheduler.RASNode {
	rn := scheduler.RASNode{ID: n.id, Running: runningOn(n)}
	sort.Slice(rn.Running, func(i, j int) bool {
		a, b := rn.Running[i], rn.Running[j]
		if a.DAG != b.DAG {
			return a.DAG < b.DAG
		}
		return a.Kind < b.Kind
	})
	return rn
}

func (c *Core) rasSnapshot() scheduler.RASSnapshot {
	var s scheduler.RASSnapshot
	for _, id := range sortedKeys(c.nodes) {
		s.Nodes = append(s.Nodes, c.rasNode(c.nodes[id]))
	}
	for _, d := range c.active {
		if d.state != DAGRunning {
			continue
		}
		rd := scheduler.RASDAG{ID: d.id, Order: d.seq}
		if t, ok := d.spec.Goal.Deadline(d.submit); ok {
			rd.Goal = t
		}
		rd.Consumers.Time = reducePhase(d)
		if d.producersDone > 0 {
			rd.Producers.MeanTaskTime = d.producerTime / time.Duration(d.producersDone)
		}
		for _, v := range d.vertices {
			queued := 0
			for _, t := range v.tasks {
				if t.state == taskQueued {
					queued++
				}
			}
			if v.rasKind() == scheduler.RASConsumer {
				rd.Consumers.Pending += queued
				if sp := v.spec.ShuffleProfile; sp != nil {
					rd.Consumers.Shuffle = toProfile(sp)
				} else {
					rd.Consumers.Shuffle = toProfile(v.spec.Profile)
				}
				if rp := v.spec.ReduceProfile; rp != nil {
					rd.Consumers.Reduce = toProfile(rp)
				} else {
					rd.Consumers.Reduce = toProfile(v.spec.Profile)
				}
			} else {
				rd.Producers.Pending += queued
				if queued > 0 || rd.Producers.Profile == (scheduler.Profile{}) {
					rd.Producers.Profile = toProfile(v.spec.Profile)
				}
			}
		}
		s.DAGs = append(s.DAGs, rd)
	}
	return s
}

// orderNodes is what a resource-aware task order sees of g's nodes, in
// the allocator's order: the room of the group's workers there, and, where
// there is room, every attempt running on the node.
func (c *Core) orderNodes(g *group) []scheduler.OrderNode {
	out := make([]scheduler.OrderNode, len(g.pnodes))
	for i, pn := range g.pnodes {
		out[i] = scheduler.OrderNode{ID: pn.ID, FitsMB: pn.FitsMB}
		if pn.FitsMB > 0 {
			out[i].Running = runningOn(c.nodes[pn.ID])
		}
	}
	return out
}

// startedOn brings the snapshot's node i up to date after a started
// attempt, so the next pick sees the room it took without a rebuild.
func (c *Core) startedOn(g *group, snap *scheduler.OrderSnapshot, i int, a *attemptRun) {
	n := &snap.Nodes[i]
	n.FitsMB = g.pnodes[i].FitsMB
	n.Running = append(n.Running, rasAttempt(a))
}
