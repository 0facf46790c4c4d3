package core

import "time"

// The task and DAG states change only here, each transition with the
// bookkeeping that goes with it (counts of succeeded tasks and pending
// work), as the autoscaler's states change only through its becomeX
// (scheduler). transitions_test.go holds that no other file assigns a
// state.
//
// A task:
//
//	          becomeQueued           becomeRunning
//	waiting ───────────────► queued ───────────────► running
//	   ▲  ▲                    │                       │ │
//	   │  └──── becomeWaiting ─┴───────────────────────┘ │ becomeSucceeded
//	   │                                                 ▼
//	   └──────────────── becomeUndone ─────────────── succeeded
//
// becomeWaiting: the attempt ended without output (failed, killed, lost
// with its worker, or dropped before it started); a running task may also
// race a backup attempt (becomeSpeculated) and go on with one of the two
// when the other ends without output (becomeSingle); becomeUndone: the
// output of a succeeded task is gone and a consumer still needs it.
// Recovery takes a task straight to running (a surviving attempt) or
// succeeded (an output the earlier attempt left).
//
// A DAG: SUBMITTED ─becomeRunning─► RUNNING ─becomeEnded─► SUCCEEDED,
// FAILED or KILLED (also straight from SUBMITTED when killed waiting).

// becomeQueued: the task waits in its group's queue, with no attempt
// record until it is placed.
func (t *taskRun) becomeQueued() {
	t.current = nil
	t.state = taskQueued
}

// becomeRunning: attempt a of the task runs on a worker.
func (t *taskRun) becomeRunning(a *attemptRun) {
	t.current = a
	t.state = taskRunning
}

// becomeSpeculated: backup b races the task's running attempt.
func (t *taskRun) becomeSpeculated(b *attemptRun) {
	t.backup = b
}

// becomeSingle: one of two racing attempts ended without output; the task
// keeps running on the other, survivor.
func (t *taskRun) becomeSingle(survivor *attemptRun) {
	t.current = survivor
	t.backup = nil
}

// becomeWaiting: the task's attempt is gone with no output; the task
// waits to be queued again (maybeQueue) or for its inputs.
func (t *taskRun) becomeWaiting() {
	t.current = nil
	t.backup = nil
	t.state = taskWaiting
}

// becomeSucceeded: the task is done, its output that of attempt output
// (nil: committed or not known, as after a recovery of an ended DAG).
func (t *taskRun) becomeSucceeded(output *attemptRun) {
	t.current = nil
	t.backup = nil
	t.state = taskSucceeded
	t.output = output
	t.vertex.succeeded++
	t.vertex.dag.pending--
}

// becomeUndone: a succeeded task whose output is gone runs again; it no
// longer counts as done.
func (t *taskRun) becomeUndone() {
	t.state = taskWaiting
	t.vertex.succeeded--
	t.vertex.dag.pending++
}

// becomeRunning: the DAG was admitted at now.
func (d *dagRun) becomeRunning(now time.Time) {
	d.state = DAGRunning
	d.start = now
}

// becomeEnded: the DAG ended at now in state st, for the reason diag.
func (d *dagRun) becomeEnded(st DAGState, diag string, now time.Time) {
	d.state = st
	d.diag = diag
	d.finish = now
}
