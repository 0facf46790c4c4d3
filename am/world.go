package am

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// World is the port through which the Loop carries out the Core's cluster
// actions: the local embedded cluster (am/local) or YARN (am/yarn). Its
// methods are called from the loop's goroutine only; a world reports back
// (a worker process exited, a container completed) by sending events to
// the loop (Sender). (The simulator has its own executor over am/core.)
type World interface {
	// WantWorkers: group a.Group wants a.Total workers (running +
	// requested), not counting those on a.Draining's nodes; no new worker
	// may go to a.Avoid's (core.WantWorkers).
	WantWorkers(now time.Time, a core.WantWorkers)
	// NodeMB is the memory of a node the world knows, for packing (0 = unknown).
	NodeMB(node string) int64
	// Tick lets the world act on time (provisioning, idle nodes), with
	// what it may need of the Core's state (the YARN world's progress).
	Tick(now time.Time, s core.Summary)
	// WorkerStopped: the AM has told a worker to exit; the world may give
	// its container back once the process is gone.
	WorkerStopped(now time.Time, worker string)
	// WorkerMoved: recycling handed a worker to another group; its
	// container stays, only the group it counts for changes.
	WorkerMoved(now time.Time, worker string, group core.GroupInfo)
	// Close stops every worker and frees the world's resources.
	Close() error
}

// Sender queues an event for the Core (Loop.Send). A world calls it from
// its own goroutines; from the loop's (inside a World method) it would
// wait on a full queue that only that goroutine drains, so a world that
// must report something there sends from another goroutine.
type Sender interface {
	Send(ev core.Event)
}

var _ Sender = (*Loop)(nil)

// SpecChecker is a World that can refuse a DAG as it is submitted for what
// only the world knows (the YARN world: a node label the cluster does not
// have), before the Core asks for any worker. Called off the loop.
type SpecChecker interface {
	CheckSpec(spec *dag.Spec) error
}

// ExitWatcher is a World that must hear that one of its workers' process
// or container ended (core.WorkerGone with Exited) before the Core does:
// the local world frees the process's memory for the workers waiting.
type ExitWatcher interface {
	WorkerExited(now time.Time, worker string)
}

// WorkerKiller is a World that can end a worker which no longer answers:
// the Core lost it to silence (a StopWorker that is not graceful) though
// its process may live on, wedged, holding its container. The local world
// sends its process SIGTERM (the worker's own second stage kills its
// tasks); YARN gives its container back (the NodeManager kills it).
type WorkerKiller interface {
	KillWorker(now time.Time, worker string)
}

// WorkerJoiner is a World that adopts workers it did not start: the
// workers of an earlier AM attempt (YARN keeps their containers), which
// reconnect to this one. The loop tells it which group each joined.
type WorkerJoiner interface {
	WorkerJoined(now time.Time, worker, group string)
}

// WorkerViewer is a World that acts on what each worker holds and runs:
// the Kubernetes world marks a pod whose worker holds outputs a running
// DAG needs safe-to-evict "false" (so the cluster autoscaler keeps its
// node), and fails an OOMKilled pod's attempts on the memory retry path.
// The loop hands it the core's workers at every tick.
type WorkerViewer interface {
	WorkersViewed(now time.Time, workers []core.WorkerView)
}

// PendingReporter is a World whose groups may wait on something outside
// the AM: the Kubernetes world's pods the scheduler cannot place. The UI
// shows, per group, why (the scheduler's own message).
type PendingReporter interface {
	PendingReasons() map[string]string
}
