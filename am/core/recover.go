package core

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Recovery: a new AM attempt rebuilds the DAGs of the attempt before it
// from its recovery log, with the same ids. Tasks whose output is
// committed (sinks) stay done. Tasks whose output a worker of the earlier
// attempt holds stay done while that worker may still come back: the
// recovered DAGs wait (SUBMITTED, nothing queued, no worker asked for)
// until every such worker has re-registered or the recovery window has
// passed; outputs whose worker did not come back are then recomputed as
// for any lost worker. Attempts still running on a worker that came back
// are adopted, and their results accepted.

// RecoveryOffReason fails the DAGs a new attempt finds unfinished when
// mr3.dag.recovery.enabled is false.
const RecoveryOffReason = "AM restarted and recovery is off"

// RecoveredTask is a task the earlier attempt saw succeed.
type RecoveredTask struct {
	Vertex  string
	Task    int
	Attempt string
	// Worker holds the output; "" when it is committed (a sink).
	Worker string
	// Counters: what the attempt counted.
	Counters []Counter
}

// RecoveredDAG is one DAG of the recovery log.
type RecoveredDAG struct {
	ID         string
	Submission Submission
	Submit     time.Time
	// Ended: the DAG reached State (with Diagnostics) at Finish.
	Ended       bool
	State       DAGState
	Diagnostics string
	Finish      time.Time
	Succeeded   []RecoveredTask
}

// RecoverOptions say how to resume.
type RecoverOptions struct {
	// Window is how long DAGs wait for the workers that hold their
	// outputs to re-register.
	Window time.Duration
	// Off (mr3.dag.recovery.enabled=false): unfinished DAGs fail with
	// RecoveryOffReason; ended ones are still listed.
	Off bool
	// Expect are workers of the earlier attempt known to be alive (YARN
	// kept their containers): the wait is for them too, so that the
	// attempts they run are adopted before anything is queued again.
	Expect []string
	// AMAttempt is this AM's attempt number (YARN's, from 1; 0 = not
	// known). A recovered task's new attempts are numbered from
	// (AMAttempt-1) × AttemptsPerAMAttempt.
	AMAttempt int
}

// AttemptsPerAMAttempt spaces the attempt numbers of successive AM
// attempts. An attempt of an earlier AM attempt whose worker never came
// back may still run (its worker cut off, not dead) and write to its
// commit's staging directory, which its id names: a new attempt of the
// task must not get the same id. The recovery log records only succeeded
// tasks, so the new AM cannot know how far the old one counted; it starts
// past any number the old one could have reached (an AM attempt runs at
// most mr3.am.task.max.failed.attempts attempts of a task, plus backups).
const AttemptsPerAMAttempt = 1000

// recovery is the Core's state while recovered DAGs wait for workers.
type recovery struct {
	until time.Time
	// orphans: outputs by the worker of the earlier attempt holding them.
	orphans map[string][]*taskRun
	dags    []*dagRun
}

// missing counts the workers still awaited (the "" entry holds outputs
// known lost, which wait for nobody).
func (r *recovery) missing() int {
	n := len(r.orphans)
	if _, ok := r.orphans[""]; ok {
		n--
	}
	return n
}

// TaskDone is a task that succeeded, for the recovery log.
type TaskDone struct {
	DAG     string
	Vertex  string
	Task    int
	Attempt string
	Worker  string // "" for a sink (its output is committed)
	// Counters: what the attempt counted, for its DAG's sums after a
	// recovery.
	Counters []Counter
}

// EnableJournal makes the Core keep a TaskDone for every task that
// succeeds, until TakeJournal takes them.
func (c *Core) EnableJournal() { c.journaling = true }

// TakeJournal returns the tasks that succeeded since the last call.
func (c *Core) TakeJournal() []TaskDone {
	j := c.succeeded
	c.succeeded = nil
	return j
}

func (c *Core) noteSucceeded(t *taskRun) {
	if !c.journaling || t.output == nil {
		return
	}
	e := TaskDone{DAG: t.vertex.dag.id, Vertex: t.vertex.spec.Name, Task: t.index, Attempt: t.output.id,
		Counters: t.vertex.counters[t.index]}
	if !t.vertex.sink && t.output.worker != nil {
		e.Worker = t.output.worker.info.ID
	}
	c.succeeded = append(c.succeeded, e)
}

// Recovering reports whether recovered DAGs still wait for workers.
func (c *Core) Recovering() bool { return c.rec != nil }

// Recover rebuilds the DAGs of an earlier attempt, in the order given (the
// order they were submitted). Call it on a new Core, before any DAG is
// submitted or worker registered.
func (c *Core) Recover(now time.Time, dags []RecoveredDAG, o RecoverOptions) error {
	c.advance(now)
	if len(c.dags) > 0 {
		return fmt.Errorf("recover: the Core already has %d DAGs", len(c.dags))
	}
	rec := &recovery{until: c.now.Add(o.Window), orphans: map[string][]*taskRun{}}
	for _, r := range dags {
		if _, dup := c.dags[r.ID]; dup {
			return fmt.Errorf("recover: DAG %s twice", r.ID)
		}
		if n, ok := dagNumber(r.ID); ok {
			c.dagSeq = max(c.dagSeq, n)
		}
		if r.Ended {
			c.recoverEnded(r)
			continue
		}
		d, err := c.recoverRunning(r, rec, o)
		if err != nil {
			return err
		}
		if o.Off {
			c.endDAG(d, DAGFailed, RecoveryOffReason)
		}
	}
	for w, ts := range rec.orphans {
		kept := ts[:0]
		for _, t := range ts {
			if !t.vertex.dag.state.Done() {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			delete(rec.orphans, w)
		} else {
			rec.orphans[w] = kept
		}
	}
	for _, d := range c.active {
		if d.recovering {
			rec.dags = append(rec.dags, d)
		}
	}
	if len(rec.dags) > 0 {
		for _, w := range o.Expect {
			if _, ok := rec.orphans[w]; !ok {
				rec.orphans[w] = nil
			}
		}
	}
	c.rec = rec
	c.retain() // an earlier attempt's finished DAGs are held to the same bounds
	c.logf("recovered %d DAGs (%d to resume); waiting up to %s for %d workers of the earlier attempt",
		len(dags), len(rec.dags), o.Window, rec.missing())
	if rec.missing() == 0 {
		c.endRecovery("no worker of the earlier attempt holds a needed output or is still alive")
	}
	return nil
}

// dagNumber reads the number of a DAG id (…dag_0007 → 7).
func dagNumber(id string) (int, bool) {
	i := strings.LastIndex(id, "dag_")
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(id[i+len("dag_"):])
	return n, err == nil
}

// attemptNumber reads the number at the end of an attempt id (…_3 → 3).
func attemptNumber(id string) int {
	i := strings.LastIndexByte(id, '_')
	n, err := strconv.Atoi(id[i+1:])
	if i < 0 || err != nil {
		return 0
	}
	return n
}

func (c *Core) newRecoveredDAG(r RecoveredDAG, g *group) *dagRun {
	c.seq++
	d := &dagRun{id: r.ID, seq: c.seq, spec: r.Submission.Spec, sub: r.Submission, submit: r.Submit, group: g,
		byName: map[string]*vertexRun{}, ramp: r.Submission.Spec.Scaling, recovered: true}
	c.expand(d)
	c.dags[d.id] = d
	return d
}

// recoverEnded lists a DAG that ended in the earlier attempt; it takes no
// part in scheduling, so it needs no group of the Core's.
func (c *Core) recoverEnded(r RecoveredDAG) {
	g := &group{info: GroupInfo{Name: r.Submission.Spec.Group.Name}}
	d := c.newRecoveredDAG(r, g)
	for _, rt := range r.Succeeded {
		if t := d.task(rt); t != nil && t.state != taskSucceeded {
			t.vertex.setTaskCounters(t.index, rt.Counters)
			t.becomeSucceeded(nil)
		}
	}
	d.state, d.diag, d.finish = r.State, r.Diagnostics, r.Finish
	c.ended = append(c.ended, d)
}

func (d *dagRun) task(rt RecoveredTask) *taskRun {
	v, ok := d.byName[rt.Vertex]
	if !ok || rt.Task < 0 || rt.Task >= len(v.tasks) {
		return nil
	}
	return v.tasks[rt.Task]
}

// recoverRunning rebuilds an unfinished DAG with the tasks that succeeded.
// A task recorded twice (its output was lost and recomputed) keeps the
// last record.
func (c *Core) recoverRunning(r RecoveredDAG, rec *recovery, o RecoverOptions) (*dagRun, error) {
	g, err := c.groupFor(r.Submission.Spec)
	if err != nil {
		return nil, &SubmitError{DAG: r.ID, Err: err}
	}
	d := c.newRecoveredDAG(r, g)
	d.recovering = true
	if base := int32(max(0, o.AMAttempt-1) * AttemptsPerAMAttempt); base > 0 {
		for _, v := range d.vertices {
			for _, t := range v.tasks {
				t.attempts = max(t.attempts, base)
			}
		}
	}
	g.owners[d] = struct{}{}
	c.active = append(c.active, d)
	// The earlier attempt's in-AM worker died with its container: a small
	// DAG gets this attempt's.
	c.considerUber(d)
	last := map[*taskRun]RecoveredTask{}
	for _, rt := range r.Succeeded {
		t := d.task(rt)
		if t == nil {
			c.warnf("recover: DAG %s has no task %s[%d]; record ignored", d.id, rt.Vertex, rt.Task)
			continue
		}
		t.attempts = max(t.attempts, int32(attemptNumber(rt.Attempt)+1))
		last[t] = rt
	}
	for _, v := range d.vertices {
		for _, t := range v.tasks {
			rt, ok := last[t]
			if !ok {
				continue
			}
			v.setTaskCounters(t.index, rt.Counters)
			t.becomeSucceeded(&attemptRun{id: rt.Attempt, task: t, number: attemptNumber(rt.Attempt)})
			if !v.sink {
				rec.orphans[rt.Worker] = append(rec.orphans[rt.Worker], t)
			}
		}
	}
	c.logf("DAG %s (%s) recovered: %d of %d tasks done", d.id, d.spec.Name, d.totalTasks()-d.pending, d.totalTasks())
	if d.pending == 0 {
		c.endDAG(d, DAGSucceeded, "")
	}
	return d, nil
}

func (d *dagRun) totalTasks() int {
	n := 0
	for _, v := range d.vertices {
		n += len(v.tasks)
	}
	return n
}

// recoveredWorker gives a re-registered worker of the earlier attempt the
// outputs it holds, and ends the wait once every such worker is back.
func (c *Core) recoveredWorker(w *workerRun) {
	for _, a := range w.info.Attempts {
		if at := c.adopt(w, a); at != nil {
			c.attemptAdoptedObserved(c.now, at, a.Started)
		}
	}
	if c.rec == nil {
		return
	}
	ts, ok := c.rec.orphans[w.info.ID]
	if !ok {
		return
	}
	delete(c.rec.orphans, w.info.ID)
	held := map[string]bool{}
	for _, id := range w.info.Outputs {
		held[id] = true
	}
	for _, t := range ts {
		if t.state != taskSucceeded || t.output == nil || t.output.worker != nil {
			continue
		}
		if w.info.Reconnected && !held[t.output.id] {
			// The log says it holds the output, the worker says not (its
			// directory is gone): recompute when the wait ends.
			c.rec.orphans[""] = append(c.rec.orphans[""], t)
			continue
		}
		t.output.worker = w
		if t.vertex.outputNeeded() {
			w.outputs[t.vertex.dag]++
		} else {
			t.released = true
		}
	}
	c.logf("worker %s of the earlier attempt is back (%d outputs, %d attempts)", w.info.ID, len(ts), len(w.info.Attempts))
	if c.rec.missing() == 0 {
		c.endRecovery("every worker holding a needed output is back")
	}
}

// recoveryTick ends the wait when the window has passed.
func (c *Core) recoveryTick() {
	if c.rec != nil && !c.now.Before(c.rec.until) {
		c.endRecovery(fmt.Sprintf("the recovery window passed with %d workers missing", c.rec.missing()))
	}
}

// endRecovery recomputes the outputs whose workers did not come back and
// lets the recovered DAGs run.
func (c *Core) endRecovery(why string) {
	rec := c.rec
	c.rec = nil
	lost := 0
	for _, w := range sortedKeys(rec.orphans) {
		for _, t := range rec.orphans[w] {
			if t.output != nil && t.output.worker == nil {
				lost++
				c.loseOutput(t)
			}
		}
	}
	sort.SliceStable(rec.dags, func(i, j int) bool { return rec.dags[i].seq < rec.dags[j].seq })
	for _, d := range rec.dags {
		d.recovering = false
	}
	c.logf("recovery done (%s): %d DAGs resume, %d outputs to recompute", why, len(rec.dags), lost)
	c.admit()
	c.schedule()
	c.updateWanted()
}

// AdoptedAttempt is an attempt a re-registered worker says it runs.
type AdoptedAttempt struct {
	ID     string
	DAG    string
	Vertex string
	Task   int
	// Started: when its worker took it (the worker's clock; zero = not
	// said), the start its record shows.
	Started time.Time
}

// AdoptAttempt takes over an attempt that a worker of the earlier attempt
// still runs: its result will count as if this attempt had started it.
// An attempt nobody wants any more (its DAG ended, its task is done or
// runs elsewhere) is killed.
func (c *Core) AdoptAttempt(now time.Time, worker string, a AdoptedAttempt) {
	c.advance(now)
	if w, ok := c.workers[worker]; ok {
		if at := c.adopt(w, a); at != nil {
			c.attemptAdoptedObserved(now, at, a.Started)
		}
		c.schedule()
		c.updateWanted()
	}
}

// adopt takes a running attempt over, or kills it (nil).
func (c *Core) adopt(w *workerRun, a AdoptedAttempt) *attemptRun {
	worker := w.info.ID
	d, ok := c.dags[a.DAG]
	var t *taskRun
	if ok && !d.state.Done() {
		t = d.task(RecoveredTask{Vertex: a.Vertex, Task: a.Task})
	}
	if t != nil {
		// Even a refused attempt's number is taken: a later attempt of
		// the task with its id could land on its worker while it is
		// still being killed there (the worker ignores a RunAttempt of
		// an id it runs) and would share its commit's staging directory.
		t.attempts = max(t.attempts, int32(attemptNumber(a.ID)+1))
	}
	if t == nil || t.state != taskWaiting || t.current != nil || w.freeMB < t.vertex.spec.MemoryMB {
		c.emit(KillAttempt{Worker: worker, AttemptID: a.ID, Reason: "not wanted after the AM restarted"})
		return nil
	}
	at := &attemptRun{id: a.ID, task: t, number: attemptNumber(a.ID), adopted: true}
	t.becomeRunning(at)
	c.attempt[at.id] = at
	c.occupy(at, w)
	at.gathering = false // it runs already: the earlier AM attempt's slow start, if any, is over for it
	c.logf("adopted attempt %s running on worker %s", at.id, worker)
	return at
}
