package core

import (
	"sort"
	"time"
)

// A slow-start stall (issue 23). Consumers started early under slow start
// hold worker memory while they gather their inputs. When they are all a
// group runs, a DAG's producers are queued and fit on no worker, and no
// worker will come (the group is at mr3.container.max.num.workers, or the
// ResourceManager's headroom is below one worker), nothing ever frees
// room: the consumers wait for the producers, the producers for room, and
// as the consumers are alive no timeout fires. slowStart.go's nextIndex
// keeps gathering consumers fewer than running producers, which prevents
// most stalls, but it counts attempts, not memory: producers larger than
// the consumers, or producers lost with their worker, still get there.
//
// Once a stall has lasted StallKillInterval the Core kills
// StallKillPercent of the gathering consumers, at least one, youngest
// first (the least shuffle work lost), and again after each further
// interval while the stall lasts, as Tez preempts its own lower-priority
// tasks (tez.am.preemption.percentage). Their DAGs are then held: no
// consumer of theirs starts before its inputs are complete while a
// producer of theirs is queued (canStart), so the freed memory goes to the
// producers and is not taken back by the consumers it was freed from. A
// killed consumer is not a failure: its task waits and runs again, as for
// a lost worker.

// relieveStalls is Tick's stage for slow-start stalls: it lifts the holds
// whose producers all got a worker, then kills consumers in each group
// stalled for long enough.
func (c *Core) relieveStalls() {
	if !c.opts.slowStart() {
		return
	}
	c.liftHolds()
	killed := false
	for _, g := range c.gorder {
		victims, stuck := c.stalledConsumers(g)
		if victims == nil {
			g.stallSince = time.Time{}
			continue
		}
		if g.stallSince.IsZero() {
			g.stallSince = c.now
		}
		if c.now.Sub(g.stallSince) < c.opts.StallKillInterval {
			continue
		}
		n := stallKills(len(victims), c.opts.StallKillPercent)
		c.logf("group %s: slow-start stall for %s (%d consumers gathering, producers queued with no room); killing %d, youngest first",
			g.info.Name, c.now.Sub(g.stallSince), len(victims), n)
		for _, d := range stuck {
			d.stallHeld = true
		}
		for _, a := range victims[:n] {
			c.killGathering(g, a)
		}
		g.stallSince = c.now // the next kill waits another interval
		killed = true
	}
	if killed {
		c.schedule()
	}
}

// stallKills is how many of n gathering consumers one round kills: pct
// percent of them rounded up, so at least one.
func stallKills(n, pct int) int {
	return min(n, max(1, (n*pct+99)/100))
}

// stalledConsumers returns g's gathering consumers, youngest first, and
// the DAGs whose producers wait, when g is stalled: every attempt it runs
// is gathering, a queued producer fits on no worker, and g gets no more
// workers. Otherwise nil.
func (c *Core) stalledConsumers(g *group) ([]*attemptRun, []*dagRun) {
	if g.queue.Len() == 0 || c.canGrow(g) {
		return nil, nil
	}
	var gathering []*attemptRun
	for w := range g.workers {
		for _, a := range w.running {
			if !a.gathering {
				return nil, nil // it will end and free room
			}
			gathering = append(gathering, a)
		}
	}
	stuck := c.stuckProducers(g)
	if len(gathering) == 0 || len(stuck) == 0 {
		return nil, nil
	}
	sort.Slice(gathering, func(i, j int) bool {
		a, b := gathering[i], gathering[j]
		if !a.started.Equal(b.started) {
			return a.started.After(b.started)
		}
		return a.id > b.id
	})
	return gathering, stuck
}

// canGrow reports whether g may still get a worker: it is below its cap
// and, when the ResourceManager reported a headroom, one more fits in it.
func (c *Core) canGrow(g *group) bool {
	if g.maxW > 0 && len(g.workers)-g.unavail >= g.maxW {
		return false
	}
	return !c.preempt.headroomOK || c.preempt.headroomMB >= g.info.MemoryMB
}

// stuckProducers lists the DAGs of g with a queued producer, an attempt
// whose inputs are complete, that fits on none of g's workers.
func (c *Core) stuckProducers(g *group) []*dagRun {
	var out []*dagRun
	for _, d := range g.queue.dags {
		for _, t := range g.queue.byDAG[d].all {
			if t.ready() && !g.roomFor(d, t.memoryMB()) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// roomFor reports whether an attempt of d asking mb fits on a worker of g.
func (g *group) roomFor(d *dagRun, mb int64) bool {
	for w := range g.workers {
		if w.takes(d) && w.freeMB >= mb {
			return true
		}
	}
	return false
}

// killGathering kills a gathering consumer to make room for its
// producers: its task waits again, with no failure counted, and its DAG
// is held until they run (liftHolds).
func (c *Core) killGathering(g *group, a *attemptRun) {
	t := a.task
	reason := "killed to make room for its producers (slow-start stall; ebb.slowstart.preemption.percentage)"
	c.emit(KillAttempt{Worker: a.worker.info.ID, AttemptID: a.id, Reason: reason})
	c.journal.attemptReported(c.now, a.rec, AttemptUpdate{AttemptID: a.id, Result: AttemptKilled, Diagnostics: reason})
	c.detach(a)
	delete(c.attempt, a.id)
	t.becomeWaiting()
	t.vertex.dag.stallHeld = true
	c.preempt.group(g.info.Name).SlowStartKilled++
	c.logf("attempt %s of %s task %d killed: its producers need the room; it runs again once they have",
		a.id, t.vertex.spec.Name, t.index)
}

// liftHolds lets the consumers of each held DAG start again once no
// producer of it waits in the queue: every one got a worker.
func (c *Core) liftHolds() {
	for _, d := range c.active {
		if !d.stallHeld || d.producerQueued() {
			continue
		}
		d.stallHeld = false
		for _, v := range d.vertices {
			for _, t := range v.tasks {
				c.maybeQueue(t)
			}
		}
	}
}

// producerQueued reports whether an attempt of d whose inputs are
// complete waits in its group's queue.
func (d *dagRun) producerQueued() bool {
	if q := d.group.queue.byDAG[d]; q != nil {
		for _, t := range q.all {
			if t.ready() {
				return true
			}
		}
	}
	return false
}
