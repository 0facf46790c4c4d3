package sim

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// executor carries out the core's actions in the virtual cloud: workers
// come and go in the world, attempts run for their traced durations.
type executor struct{ e *engine }

var _ core.Executor = executor{}

func (x executor) WantWorkers(now time.Time, a core.WantWorkers) {
	x.e.world.WantWorkers(now, a)
}

func (x executor) RunAttempt(now time.Time, a core.RunAttempt) { x.e.run(now, a) }

func (x executor) KillAttempt(now time.Time, a core.KillAttempt) { x.e.stopRunning(now, a.AttemptID) }

// GrantCommit: the sim's attempts commit nothing and never ask.
func (x executor) GrantCommit(time.Time, core.GrantCommit) {}

func (x executor) StopWorker(now time.Time, a core.StopWorker) {
	x.e.world.WorkerStopped(now, a.Worker)
}

// MoveWorker: a recycled worker keeps its virtual container; only the group
// it counts for changes.
func (x executor) MoveWorker(now time.Time, a core.MoveWorker) {
	x.e.rec.run.WorkerMoves++
	x.e.world.WorkerMoved(now, a.Worker, a.Group)
}

func (x executor) DAGEnded(now time.Time, a core.DAGEnded) {
	j := x.e.jobs[a.DAG.ID]
	if j == nil {
		return
	}
	j.finish = now
	j.state = a.DAG.State
	x.e.lastFinish = now
	x.e.rec.jobEnded(j, x.e.start)
}

// AttemptInputs: a consumer started under slow start leaves its shuffle
// phase when its last input appears (contention.go).
func (x executor) AttemptInputs(now time.Time, a core.AttemptInputs) {
	if a.Complete {
		x.e.inputsComplete(now, a.AttemptID, a.Profile)
	}
}

// StartAMWorker: the simulator's cloud has no AM container, so the in-AM
// worker is gone at once and its DAGs ask for workers as any other.
func (x executor) StartAMWorker(now time.Time, a core.StartAMWorker) {
	x.e.core.WorkerLost(now, a.Worker, "the simulator has no AM container")
}

// Log: the sim's report is its output; the core's operator lines are not.
func (x executor) Log(time.Time, core.Log) {}
