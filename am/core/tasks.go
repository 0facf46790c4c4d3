package core

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// ready reports whether every input of t exists: all producer tasks of a
// scatter-gather or broadcast edge, producer task i of a one-to-one edge.
func (t *taskRun) ready() bool {
	for _, e := range t.vertex.in {
		p := e.other
		if e.typ == dag.OneToOne {
			if p.tasks[t.index].state != taskSucceeded {
				return false
			}
		} else if p.succeeded < len(p.tasks) {
			return false
		}
	}
	return true
}

// maybeQueue queues a waiting task whose inputs are ready. It counts the
// attempt it will run (t.attempts) now, so the attempt's number and id are
// what they would be had its record been created here; place creates the
// record when the task gets a worker.
func (c *Core) maybeQueue(t *taskRun) {
	d := t.vertex.dag
	if t.state != taskWaiting || d.state != DAGRunning {
		return
	}
	c.reviveInputs(t)
	if !c.canStart(t) {
		return
	}
	t.attempts++
	t.queuedAt = c.now
	t.becomeQueued()
	d.group.push(t)
}

// attemptID names attempt number n of t: <dag>_<vertex>_<task, 6 digits>_<n>.
// It is built with strconv, not fmt: place names an attempt for every
// placement.
func attemptID(t *taskRun, n int) string {
	d, name := t.vertex.dag, t.vertex.spec.Name
	b := make([]byte, 0, len(d.id)+len(name)+16)
	b = append(b, d.id...)
	b = append(b, '_')
	b = append(b, name...)
	b = append(b, '_')
	if t.index >= 0 {
		for p := 100000; p > 1 && t.index < p; p /= 10 {
			b = append(b, '0')
		}
	}
	b = strconv.AppendInt(b, int64(t.index), 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(n), 10)
	return string(b)
}

// reviveInputs re-runs producer tasks that count as done but whose output
// is gone (released and then lost with its worker), because t needs them.
func (c *Core) reviveInputs(t *taskRun) {
	for _, e := range t.vertex.in {
		p := e.other
		revive := func(pt *taskRun) {
			if pt.state == taskSucceeded && pt.output == nil {
				pt.becomeUndone()
				c.maybeQueue(pt)
			}
		}
		if e.typ == dag.OneToOne {
			revive(p.tasks[t.index])
		} else {
			for _, pt := range p.tasks {
				revive(pt)
			}
		}
	}
}

// releaseInputs is called when every task of v has succeeded: producers
// whose consumers are all done no longer hold needed outputs, so their
// workers may be drained or recycled before the DAG ends.
func (c *Core) releaseInputs(v *vertexRun) {
	for _, e := range v.in {
		p := e.other
		if p.outputNeeded() {
			continue
		}
		for _, pt := range p.tasks {
			c.releaseOutput(pt)
		}
	}
}

func (c *Core) releaseOutput(t *taskRun) {
	if t.output == nil || t.released || t.output.worker == nil {
		return
	}
	t.released = true
	w := t.output.worker
	d := t.vertex.dag
	if w.outputs[d]--; w.outputs[d] <= 0 {
		delete(w.outputs, d)
	}
	if w.idle() {
		w.idleFrom = c.now
	}
}

// consumersReady queues consumer tasks that a newly succeeded task of v may
// have made ready.
func (c *Core) consumersReady(t *taskRun) {
	v := t.vertex
	for _, e := range v.out {
		if e.typ == dag.OneToOne {
			c.maybeQueue(e.other.tasks[t.index])
			continue
		}
		if v.succeeded == len(v.tasks) {
			for _, ct := range e.other.tasks {
				c.maybeQueue(ct)
			}
		}
	}
}

// outputNeeded reports whether some consumer of v still has to read its
// outputs (a sink's outputs are committed, so nobody reads them).
func (v *vertexRun) outputNeeded() bool {
	if v.dag.state.Done() {
		return false
	}
	for _, e := range v.out {
		if e.other.succeeded < len(e.other.tasks) {
			return true
		}
	}
	return false
}

// AttemptUpdate records a worker's report about an attempt.
func (c *Core) AttemptUpdate(now time.Time, u AttemptUpdate) {
	c.advance(now)
	a, ok := c.attempt[u.AttemptID]
	if !ok || a.worker == nil {
		return // a report about an attempt that was killed or replaced: ignore
	}
	c.journal.attemptReported(c.now, a.rec, u)
	t := a.task
	d := t.vertex.dag
	a.lastSeen = c.now
	c.noteAttemptEnd(a, u.Result)
	switch u.Result {
	case AttemptRunning:
		a.progress = u.Progress
		a.progressRan = c.now.Sub(a.started)
		return
	case AttemptCommitPending:
		c.commitAsked(a)
		return
	case AttemptSucceeded:
		w := a.worker
		d.attemptTime += c.now.Sub(a.started)
		d.attemptsDone++
		if !a.adopted {
			// An adopted attempt's start is its adoption, not when it
			// began: its run time would make the vertex's look short,
			// and every other attempt a straggler (speculate.go).
			d.observed(t.vertex, c.now.Sub(a.started))
		}
		c.killLoser(a)
		c.detach(a)
		delete(c.attempt, a.id)
		t.vertex.setTaskCounters(t.index, u.Counters)
		t.becomeSucceeded(a)
		if !t.vertex.sink {
			a.worker = w
			w.outputs[d]++
		}
		c.noteSucceeded(t)
		if d.pending == 0 {
			c.endDAG(d, DAGSucceeded, "")
		} else {
			if t.vertex.succeeded == len(t.vertex.tasks) {
				c.releaseInputs(t.vertex)
			}
			c.consumersReady(t)
			c.slowStartReady(t)
		}
	case AttemptFetchFailed:
		c.dropAttempt(a)
		if p, ok := c.findOutput(d, u.FetchFailedAttempt); ok {
			// An output its consumers cannot read counts as a failure of the
			// producer, as MapReduce counts a map whose output reducers
			// cannot fetch: a producer that never writes what it should
			// ends the DAG instead of being re-run for ever.
			p.failures++
			d.failed++
			if int(p.failures) >= c.opts.MaxFailedAttempts {
				c.endDAG(d, DAGFailed, fmt.Sprintf("vertex %s task %d: its output could not be read %d times (last by attempt %s: %s)",
					p.vertex.spec.Name, p.index, p.failures, a.id, u.Diagnostics))
				break
			}
			c.warnf("attempt %s could not read the output of %s (%d of %d allowed); re-running %s task %d",
				a.id, u.FetchFailedAttempt, p.failures, c.opts.MaxFailedAttempts, p.vertex.spec.Name, p.index)
			c.loseOutput(p)
		}
		c.maybeQueue(t)
	case AttemptKilled:
		if a.adopted {
			// The earlier AM attempt killed it before it died (the loser
			// of a commit race, a preemption): its decision, which counted
			// no failure there and counts none here. The task runs again
			// unless its rival, adopted too, goes on.
			c.dropAttempt(a)
			c.maybeQueue(t)
			break
		}
		c.attemptFailed(a, u)
	default: // failed
		c.attemptFailed(a, u)
	}
	c.schedule()
	c.updateWanted()
}

// attemptFailed counts a's failure (failed, or killed by its worker) and
// runs its task again, or ends the DAG when the task has failed too often.
func (c *Core) attemptFailed(a *attemptRun, u AttemptUpdate) {
	t := a.task
	d := t.vertex.dag
	c.dropAttempt(a)
	t.failures++
	d.failed++
	diag := u.Diagnostics
	if diag == "" {
		diag = fmt.Sprintf("exit code %d", u.ExitCode)
	}
	if u.MemoryUsedMB > 0 {
		diag = c.memoryExceeded(a, u.MemoryUsedMB, int(t.failures) >= c.opts.MaxFailedAttempts)
		c.journal.attemptNoted(a.rec, diag)
		if int(t.failures) < c.opts.MaxFailedAttempts {
			d.note(diag)
		}
	}
	if int(t.failures) >= c.opts.MaxFailedAttempts {
		c.endDAG(d, DAGFailed, fmt.Sprintf("vertex %s task %d failed %d times; last attempt %s: %s",
			t.vertex.spec.Name, t.index, t.failures, a.id, diag))
		return
	}
	c.warnf("attempt %s failed (%d of %d allowed): %s", a.id, t.failures, c.opts.MaxFailedAttempts, diag)
	c.maybeQueue(t)
}

// findOutput finds the succeeded task whose output attempt has this id.
func (c *Core) findOutput(d *dagRun, attemptID string) (*taskRun, bool) {
	for _, v := range d.vertices {
		for _, t := range v.tasks {
			if t.output != nil && t.output.id == attemptID {
				return t, true
			}
		}
	}
	return nil, false
}

// loseOutput marks a succeeded task's output as gone and re-runs the task
// if a consumer still needs it.
func (c *Core) loseOutput(t *taskRun) {
	if t.state != taskSucceeded || t.output == nil {
		return
	}
	d := t.vertex.dag
	if w := t.output.worker; w != nil && !t.released {
		if w.outputs[d]--; w.outputs[d] <= 0 {
			delete(w.outputs, d)
		}
	}
	t.output = nil
	t.released = false
	if !t.vertex.outputNeeded() {
		return // nobody will read it again: keep counting the task as done
	}
	t.becomeUndone()
	c.maybeQueue(t)
}

// detach removes a running attempt from its worker and node.
func (c *Core) detach(a *attemptRun) {
	w := a.worker
	if w == nil {
		return
	}
	mem := a.memoryMB()
	if k := slices.Index(w.running, a); k >= 0 {
		w.running = slices.Delete(w.running, k, k+1)
	}
	w.freeMB += mem
	w.node.usedMB -= mem
	a.task.vertex.dag.running--
	c.nodeUsageChanged(w.node) // w's group's view too, if w or another of its workers is there
	if w.idle() {
		w.idleFrom = c.now
	}
	a.worker = nil
}
