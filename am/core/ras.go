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
// (scheduler.Plan); between cycles, free room on a node goes to the DAG
// furthest below its plan (scheduler.NextDAG). The plan only changes what
// starts next: nothing is killed, and no node is planned past its CPU,
// memory or I/O under the profiles, so the number of concurrent tasks per
// worker ("job slots") follows from the profiles.

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

func toProfile(p *dag.Profile) scheduler.Profile {
	if p == nil {
		return scheduler.Profile{}
	}
	return scheduler.Profile{CPU: p.CPU, Memory: p.Memory, IO: p.IO}
}

// rasCycle re-plans when the control cycle has passed (or no plan exists).
func (c *Core) rasCycle() {
	if c.opts.Tasks != TaskRAS {
		return
	}
	cycle := c.opts.RASCycle
	if cycle <= 0 {
		cycle = 30 * time.Second
	}
	if c.rasPlan != nil && c.now.Sub(c.rasPlan.At) < cycle {
		return
	}
	p := scheduler.Plan(c.now, c.rasSnapshot())
	c.rasPlan = &p
}

func (c *Core) rasNode(n *nodeRun) scheduler.RASNode {
	rn := scheduler.RASNode{ID: n.id}
	for w := range n.workers {
		for a := range w.running {
			rn.Running = append(rn.Running, scheduler.RASAttempt{DAG: a.task.vertex.dag.id, Kind: a.task.vertex.rasKind(), Profile: toProfile(a.profile)})
		}
	}
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
		if d.attemptsDone > 0 {
			rd.Producers.MeanTaskTime = d.attemptTime / time.Duration(d.attemptsDone)
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

// placeRAS fills free room node by node with the DAG the plan favours.
func (c *Core) placeRAS(g *group) {
	c.rasCycle()
	ids := make([]string, 0, len(g.byNode))
	for id := range g.byNode {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		n := c.nodes[id]
		for g.queue.Len() > 0 {
			w := g.freestWorker(id)
			if w == nil {
				break
			}
			var cands []scheduler.RASCandidate
			for _, d := range g.queue.dags {
				a := g.queue.head(d)
				if a == nil || a.memoryMB() > w.freeMB {
					continue
				}
				cands = append(cands, scheduler.RASCandidate{DAG: d.id, Kind: a.task.vertex.rasKind(), Profile: toProfile(a.task.vertex.activeProfile())})
			}
			if len(cands) == 0 {
				break
			}
			pick, ok := scheduler.NextDAG(*c.rasPlan, c.rasNode(n), cands)
			if !ok {
				break
			}
			d := c.dags[pick.DAG]
			if a := c.popReady(g, d); a != nil {
				c.start(a, w)
			}
		}
	}
}

// freestWorker is the group's worker on a node with the most free memory.
func (g *group) freestWorker(node string) *workerRun {
	var best *workerRun
	for _, w := range g.byNode[node] {
		if w.draining {
			continue
		}
		if best == nil || w.freeMB > best.freeMB || (w.freeMB == best.freeMB && w.info.ID < best.info.ID) {
			best = w
		}
	}
	return best
}
