package core

import (
	"math"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/scheduler"
)

// Slow start, as MapReduce does it (mapreduce.job.reduce.slowstart.
// completedmaps): a consumer of a scatter-gather edge may start once
// CoreOptions.SlowStart of the edge's producer tasks have succeeded,
// instead of all of them. It starts with the outputs that exist (its
// AttemptSpec says Incomplete) and spends the rest of the producers' run
// in its shuffle phase, under its shuffle profile; each producer output
// that appears later, including one recomputed after a loss, reaches it in
// an AttemptInputs action, and the one that completes its inputs moves it
// to its reduce profile, which the world and the ras planner then see.
// One-to-one and broadcast inputs still wait for their producers, and so
// does every consumer when SlowStart is 0 (off) or 1.

// AttemptInputs tells the world that producer outputs a running attempt
// reads have appeared since it started (Incomplete attempts only). With
// Complete every input is now there: the attempt leaves its shuffle phase
// and runs with Profile (its reduce profile; nil when not given).
type AttemptInputs struct {
	Worker    string
	AttemptID string
	Inputs    []InputFetch
	Complete  bool
	Profile   *dag.Profile
}

func (a AttemptInputs) carryOut(now time.Time, x Executor) { x.AttemptInputs(now, a) }

// producersNeeded is how many of p's tasks must have succeeded before a
// consumer across a scatter-gather edge may start: all of them, or under
// slow start the fraction, rounded up, and at least one (before the first
// there is nothing to fetch).
func (c *Core) producersNeeded(p *vertexRun) int {
	n := len(p.tasks)
	f := c.opts.SlowStart
	if !c.opts.slowStart() {
		return n
	}
	return min(n, max(1, int(math.Ceil(f*float64(n)-1e-9))))
}

// canStart reports whether t's inputs allow an attempt to start: every
// one-to-one and broadcast input there, and enough of each scatter-gather
// producer's (producersNeeded); and all of them while its DAG is held
// after a slow-start stall (stall.go).
func (c *Core) canStart(t *taskRun) bool {
	if t.vertex.dag.stallHeld {
		return t.ready()
	}
	for _, e := range t.vertex.in {
		p := e.other
		switch e.typ {
		case dag.OneToOne:
			if p.tasks[t.index].state != taskSucceeded {
				return false
			}
		case dag.ScatterGather:
			if p.succeeded < c.producersNeeded(p) {
				return false
			}
		default:
			if p.succeeded < len(p.tasks) {
				return false
			}
		}
	}
	return true
}

// slowStartReady queues consumer tasks across v's scatter-gather edges
// that v's latest success lets start early, and hands the new output of
// pt to the running consumer attempts still gathering their inputs.
func (c *Core) slowStartReady(pt *taskRun) {
	if !c.opts.slowStart() {
		return
	}
	v := pt.vertex
	for _, e := range v.out {
		if e.typ != dag.ScatterGather {
			continue
		}
		for _, ct := range e.other.tasks {
			if a := ct.current; a != nil && a.worker != nil && a.gathering {
				c.sendInput(a, v, pt)
			} else {
				c.maybeQueue(ct)
			}
		}
	}
}

// sendInput tells a's world about pt's output, and whether a now has all
// its inputs.
func (c *Core) sendInput(a *attemptRun, v *vertexRun, pt *taskRun) {
	t := a.task
	act := AttemptInputs{Worker: a.worker.info.ID, AttemptID: a.id}
	if o := pt.output; o != nil && o.worker != nil {
		act.Inputs = []InputFetch{{ProducerVertex: v.spec.Name, ProducerTask: pt.index, ProducerAttempt: o.id,
			Address: o.worker.info.Address, Consumer: t.vertex.spec.Name, Partition: t.index}}
	}
	if t.ready() {
		a.gathering = false
		a.lastSeen = c.now // the task timeout counts from here
		a.gathered = c.now.Sub(a.started)
		a.profile = t.vertex.activeProfile()
		act.Complete, act.Profile = true, a.profile
	}
	c.emit(act)
}

// gatherInputs keeps only the inputs that exist in an attempt starting
// under slow start and marks it Incomplete; the rest follow in
// AttemptInputs.
func (a *attemptRun) gatherInputs(s *AttemptSpec) {
	if !a.gathering {
		return
	}
	s.Incomplete = true
	kept := s.Inputs[:0]
	for _, in := range s.Inputs {
		if in.ProducerAttempt != "" && in.Address != "" {
			kept = append(kept, in)
		}
	}
	s.Inputs = kept
}

// nextIndex is the position in q, d's queue, of the task d starts next:
// the head (producers before consumers, topological order), except that
// under slow start a consumer queued before its producers are all done
// goes ahead of queued producers, as MapReduce launches reduces beside the
// remaining maps, while d's consumers gathering inputs are fewer than its
// running producers. That keeps at least half of what d runs for its
// producers (Hadoop's reduce ramp-up limit of 0.5 in spirit), so consumers
// waiting for outputs never hold every slot the producers need.
func (c *Core) nextIndex(d *dagRun, q *taskQueue) int {
	head := q.head()
	if !c.opts.slowStart() || q.Len() < 2 || !d.consumersWaiting() {
		return head
	}
	early := -1
	for i, t := range q.all {
		if t.vertex.rasKind() == scheduler.RASConsumer && !t.ready() && (early < 0 || q.less(i, early)) {
			early = i
		}
	}
	if early < 0 || early == head {
		return head
	}
	gathering, producers := 0, 0
	for _, v := range d.vertices {
		for _, t := range v.tasks {
			if a := t.current; a != nil && a.worker != nil {
				switch {
				case a.gathering:
					gathering++
				case v.rasKind() == scheduler.RASProducer:
					producers++
				}
			}
		}
	}
	if gathering < producers {
		return early
	}
	return head
}

// consumersWaiting reports whether some consumer vertex of d still waits
// for a producer. If none does, every consumer task is ready and nextIndex
// has nothing to look for: the check costs O(vertices), where the walk
// over d's queue cost O(queued attempts) for every placement (a map-only
// DAG of 100,000 tasks placed a few hundred a second under the default
// slow start).
func (d *dagRun) consumersWaiting() bool {
	for _, v := range d.vertices {
		if v.rasKind() != scheduler.RASConsumer {
			continue
		}
		for _, e := range v.in {
			if e.other.succeeded < len(e.other.tasks) {
				return true
			}
		}
	}
	return false
}
