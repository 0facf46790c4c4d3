package scheduler

import "time"

// GroupSnapshot is what the autoscaler knows of a ContainerGroup at one
// step. Workers, Nodes and their figures describe the workers that take
// new work: a worker on a node being drained is already leaving and is
// left out by the AM, so a drained node is never chosen twice.
type GroupSnapshot struct {
	Workers        int   // launched workers of the group
	PendingWorkers int   // asked for, not launched yet
	QueuedAttempts int   // attempts of the group waiting for a worker
	QueuedMB       int64 // memory those attempts need
	WorkerMB       int64 // memory one worker offers to attempts
	Nodes          []NodeLoad
	ActiveDAGs     []string // DAGs running now, in a stable order

	// For predictive scale-out.
	MeanAttemptDuration time.Duration // of finished attempts; 0 = none yet
	RunningAttempts     int

	// The work in sight, in MB·s (memory × expected time), estimated per
	// kind of job (vertex) from its finished attempts; filled only with
	// predictive scale-out on. QueuedWork: the queued attempts; RunningWork:
	// what the running attempts have left; WaitingWork: tasks of running
	// DAGs still waiting for inputs (work predicted to arrive).
	// UnknownQueued counts queued attempts of kinds with no estimate yet
	// (not in QueuedWork).
	QueuedWork, RunningWork, WaitingWork float64
	UnknownQueued                        int
	// RoomWorkers is how many more workers fit on the nodes the group's
	// AM already holds: they start without a boot.
	RoomWorkers int

	// Ramp is the ramp the queued work's DAGs ask for: RampAggressive,
	// RampConservative, or "" for the normal ramp.
	Ramp string
}

// The per-DAG ramps (`scaling:` in a DAG spec).
const (
	RampAggressive   = "aggressive"
	RampConservative = "conservative"
)

// NodeLoad is the group's share of one node.
type NodeLoad struct {
	ID              string
	Workers         int
	RunningAttempts int
	RunningMB       int64
	NeededOutputs   int       // outputs there that running DAGs still need
	PaidUntil       time.Time // end of the node's paid billing period; zero = unknown
	// Remaining is the longest expected time left of the attempts running
	// there (0 when idle or unknown): how long emptying it takes.
	Remaining time.Duration
}

// runningMB is the memory the group's running attempts hold now.
func (s GroupSnapshot) runningMB() int64 {
	var mb int64
	for _, n := range s.Nodes {
		mb += n.RunningMB
	}
	return mb
}

// Decision is the outcome of one step. From == To with no action means
// there is nothing to do; Reason then says which rule or guard held.
// RequestWorkers and CancelPending are never both set.
type Decision struct {
	From, To State
	Reason   string

	RequestWorkers int      // ask the cluster for this many more workers
	CancelPending  bool     // withdraw the requests not granted yet
	DrainNodes     []string // empty these nodes, then release their workers
	// WaitForDAGs are the DAGs active when the scale-in began
	// (mr3.auto.scale.in.wait.dag.finished): workers on the drained
	// nodes keep serving until all of them have finished.
	WaitForDAGs []string
}

// Changed reports whether the decision moves the state or asks for work.
func (d Decision) Changed() bool {
	return d.From != d.To || d.RequestWorkers > 0 || d.CancelPending || len(d.DrainNodes) > 0
}
