package am

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// executor carries out the Core's actions for the Loop: cluster actions go
// to the World, attempt and worker actions to the worker connections.
type executor struct{ l *Loop }

var _ core.Executor = executor{}

// record hands an action to the event log (when one is kept) as it is
// carried out.
func (x executor) record(now time.Time, a core.Action) {
	if x.l.rec != nil {
		x.l.rec.Action(now, a)
	}
}

func (x executor) WantWorkers(now time.Time, a core.WantWorkers) {
	x.record(now, a)
	x.l.world.WantWorkers(now, a)
}

// RunAttempt: an attempt that cannot reach its worker is reported killed,
// so the Core re-queues it without counting a failure. The report is an
// event like any other, fed back after this Drain (and recorded).
func (x executor) RunAttempt(now time.Time, a core.RunAttempt) {
	x.record(now, a)
	if !x.l.send(a.Worker, runMessage(a.Attempt)) {
		x.l.feedBack(core.AttemptUpdated{Update: core.AttemptUpdate{AttemptID: a.Attempt.ID, Result: core.AttemptKilled, Diagnostics: "worker connection gone"}})
	}
}

func (x executor) KillAttempt(now time.Time, a core.KillAttempt) {
	x.record(now, a)
	x.l.send(a.Worker, killMessage(a.AttemptID, a.Reason))
}

// GrantCommit: a grant that cannot reach its worker is lost with the
// worker, which the Core learns from the worker's loss.
func (x executor) GrantCommit(now time.Time, a core.GrantCommit) {
	x.record(now, a)
	x.l.send(a.Worker, commitMessage(a.AttemptID))
	x.l.granted(a.AttemptID)
}

// StopWorker: a stop that is not graceful is for a worker the Core lost
// to silence; a world that can (WorkerKiller) makes sure its process ends.
func (x executor) StopWorker(now time.Time, a core.StopWorker) {
	x.record(now, a)
	x.l.log.Infof("stopping worker %s: %s", a.Worker, a.Reason)
	x.l.send(a.Worker, stopMessage(a.Graceful, a.Reason))
	x.l.closeConn(a.Worker)
	if x.l.isAMProc(a.Worker) {
		// In the AM's container: no world holds it, the loop ends it.
		if !a.Graceful {
			x.l.killAMProc(a.Worker)
		}
		return
	}
	x.l.world.WorkerStopped(now, a.Worker)
	if k, ok := x.l.world.(WorkerKiller); ok && !a.Graceful {
		k.KillWorker(now, a.Worker)
	}
}

func (x executor) MoveWorker(now time.Time, a core.MoveWorker) {
	x.record(now, a)
	x.l.send(a.Worker, reinitMessage(a.Group))
	if !x.l.isAMProc(a.Worker) {
		x.l.world.WorkerMoved(now, a.Worker, a.Group)
	}
}

// DAGEnded: the hooks get the DAG's detail as it ends, when asked for
// (the DAG is whole in the Core at this point; it may be compacted later).
func (x executor) DAGEnded(now time.Time, a core.DAGEnded) {
	x.record(now, a)
	for _, w := range a.Workers {
		x.l.send(w, dagDoneMessage(a.DAG.ID))
	}
	x.l.mu.Lock()
	fs := append([]func(core.DAGStatus, *core.DAGView){}, x.l.ended...)
	x.l.mu.Unlock()
	var detail *core.DAGView
	if x.l.endedDetail {
		if v, ok := x.l.core.DAGView(a.DAG.ID); ok {
			detail = &v
		}
	}
	for _, f := range fs {
		f(a.DAG, detail)
	}
}

func (x executor) Log(now time.Time, a core.Log) {
	x.record(now, a)
	if a.Warn {
		x.l.log.Warn(a.Msg)
	} else {
		x.l.log.Info(a.Msg)
	}
}

// AttemptInputs hands a slow-started attempt the inputs that appeared
// since it started. If its worker cannot be reached the attempt is lost
// with it, which the Core learns from the worker's loss.
func (x executor) AttemptInputs(now time.Time, a core.AttemptInputs) {
	x.record(now, a)
	x.l.send(a.Worker, inputsMessage(a))
}

// StartAMWorker starts the in-AM worker of small DAGs (amworker.go).
func (x executor) StartAMWorker(now time.Time, a core.StartAMWorker) {
	x.record(now, a)
	x.l.startAMWorker(a)
}
