package core

import (
	"time"

	"github.com/ebb-am/ebb/dag"
)

// Action is something the Core asks its world to do. The world carries it
// out and reports the outcome back as events.
type Action interface {
	// carryOut calls the Executor method for this action.
	carryOut(now time.Time, x Executor)
}

// WantWorkers says how many workers a ContainerGroup wants in total
// (running plus requested). The world starts more when it has fewer, and
// cancels requests it has not yet filled when it has more; it never stops a
// running worker on its own (the Core sends StopWorker for that). Prefer
// lists nodes where new workers should go, best first (packing); "" = any.
type WantWorkers struct {
	Group  GroupInfo
	Total  int
	Prefer []string
	// Avoid lists the nodes no new worker may go to: the draining ones,
	// blacklisted and not RUNNING ones, and the slow nodes avoided for
	// speculative backups.
	Avoid []string
	// Draining lists the nodes whose workers are leaving: the Core counts
	// none of them in Total, though they may stay registered a long time
	// (serving outputs a running DAG still reads). A world compares Total
	// with the workers it holds less those on these nodes; counting them
	// would let them stand in for the new workers the group needs
	// meanwhile. A slow node in Avoid is not here: its workers still
	// count.
	Draining []string
}

// RunAttempt hands an attempt to a worker.
type RunAttempt struct {
	Worker  string
	Attempt AttemptSpec
	// w is the worker it was sent to and run the attempt, for the
	// journal (observe), which otherwise looked them up by id for every
	// attempt.
	w   *workerRun
	run *attemptRun
}

// KillAttempt stops a running attempt (its DAG was killed or failed).
type KillAttempt struct {
	Worker    string
	AttemptID string
	Reason    string
	// Loser: the other attempt of its task finished first (speculate.go);
	// no failure.
	Loser bool
}

// GrantCommit lets an attempt that asked (AttemptCommitPending) commit
// its output (speculate.go).
type GrantCommit struct {
	Worker    string
	AttemptID string
}

// StopWorker asks a worker to exit. Graceful workers finish their running
// attempts and keep serving outputs until their DAGs are done.
type StopWorker struct {
	Worker   string
	Graceful bool
	Reason   string
}

// MoveWorker hands a worker to another group of its kind (recycling): the
// worker is reinitialised for Group; the world's container stays the same.
type MoveWorker struct {
	Worker string
	From   string
	Group  GroupInfo
}

// DAGEnded reports a finished DAG; Workers are told to delete its outputs.
type DAGEnded struct {
	DAG     DAGStatus
	Workers []string
}

// Log is a line the Core wants operators to see (transitions, failures).
type Log struct {
	Warn bool
	Msg  string
}

func (a WantWorkers) carryOut(now time.Time, x Executor) { x.WantWorkers(now, a) }
func (a RunAttempt) carryOut(now time.Time, x Executor)  { x.RunAttempt(now, a) }
func (a KillAttempt) carryOut(now time.Time, x Executor) { x.KillAttempt(now, a) }
func (a GrantCommit) carryOut(now time.Time, x Executor) { x.GrantCommit(now, a) }
func (a StopWorker) carryOut(now time.Time, x Executor)  { x.StopWorker(now, a) }
func (a MoveWorker) carryOut(now time.Time, x Executor)  { x.MoveWorker(now, a) }
func (a DAGEnded) carryOut(now time.Time, x Executor)    { x.DAGEnded(now, a) }
func (a Log) carryOut(now time.Time, x Executor)         { x.Log(now, a) }

// GroupInfo is what a world needs to start a worker of a group.
type GroupInfo struct {
	Name     string
	MemoryMB int64
	VCores   int
	Env      map[string]string
	// Resources: other resource types each worker's container asks for.
	Resources map[string]int64 `json:",omitempty"`
	// NodeLabel: the YARN node label (partition) its containers run in.
	NodeLabel string `json:",omitempty"`
}

// AttemptSpec is everything a worker needs to run one attempt.
type AttemptSpec struct {
	ID      string
	DAGID   string
	DAGName string
	Vertex  string
	Task    int
	Number  int
	// Speculative: a backup attempt racing a straggler (speculate.go).
	Speculative bool
	Parallelism int
	Command     []string
	Env         map[string]string
	MemoryMB    int64
	VCores      int
	Outputs     []OutputSpec
	Inputs      []InputFetch
	Splits      []Split
	// AskCommit: a sink attempt of a speculative vertex asks before it
	// commits (AttemptCommitPending) and commits only once granted
	// (GrantCommit): of two racing attempts only one publishes files.
	AskCommit bool
	// SplitsAsFiles: copy the splits to files before the command starts
	// (the vertex's inputMode: file) instead of streaming them.
	SplitsAsFiles bool
	CommitDir     string
	// Incomplete: started under slow start (CoreOptions.SlowStart) with
	// only the inputs that exist; the others follow in AttemptInputs, and
	// the command runs once the last has arrived.
	Incomplete bool
	// SimDuration is the traced run time (sim world only).
	SimDuration time.Duration
	// Profile is the fraction of a node's CPU, memory and I/O the attempt
	// uses while it runs (nil: not given). For a consumer of a
	// scatter-gather edge it is the shuffle profile while producers still
	// run and the reduce profile after. The sim's contention model uses it.
	Profile *dag.Profile
}

// OutputSpec is one outgoing edge: the consumer vertex and the partitions
// the attempt writes for it.
type OutputSpec struct {
	Consumer   string
	Partitions int
}

// InputFetch is one upstream partition an attempt reads.
type InputFetch struct {
	ProducerVertex  string
	ProducerTask    int
	ProducerAttempt string
	Address         string
	Consumer        string
	Partition       int
}

// Split is a byte range of an input file.
type Split struct {
	Path   string
	Offset int64
	Length int64
	// RecordLength is the vertex's recordLength: 0 for lines, N for a
	// range of whole N-byte records copied exactly.
	RecordLength int64
}

// AttemptResult is how an attempt ended, as a worker reports it.
type AttemptResult int

const (
	AttemptRunning AttemptResult = iota
	AttemptSucceeded
	AttemptFailed
	AttemptKilled
	// AttemptFetchFailed: an upstream output could not be read; it does not
	// count against the task, but the producer is re-run.
	AttemptFetchFailed
	// AttemptCommitPending: the attempt ran and asks to commit (it was
	// started with AskCommit); it keeps running until granted or killed.
	AttemptCommitPending
)

// AttemptUpdate is a worker's report about one attempt.
type AttemptUpdate struct {
	AttemptID          string
	Result             AttemptResult
	Progress           float64
	ExitCode           int
	Diagnostics        string
	OutputBytes        int64
	FetchFailedAttempt string
	// MemoryUsedMB is set when the worker killed the attempt for using
	// more memory than it asked for: what it saw in use. Such a failure is
	// retried with more memory (CoreOptions.MemoryRetry).
	MemoryUsedMB int64
	// Counters: what the attempt's program counted (sums by group and
	// name); kept when it succeeds. Status: its last status line.
	Counters []Counter
	Status   string
}

// WorkerInfo is what a worker says when it registers.
type WorkerInfo struct {
	ID          string
	Group       string
	Node        string
	NodeMB      int64 // the node's memory, for packing; 0 = unknown (taken as the worker's)
	MemoryMB    int64
	VCores      int
	Address     string // where its outputs are served
	ContainerID string
	// Reconnected: a worker of an earlier AM attempt, which serves the
	// outputs of the attempts in Outputs.
	Reconnected bool
	Outputs     []string
	// Attempts it still runs (or finished while no AM listened): adopted
	// before the recovered DAGs queue anything.
	Attempts []AdoptedAttempt
}

// Submission is a DAG handed to the Core: the validated spec, its input
// splits per vertex and task (the loop lists the files; the Core does no
// IO), and where the sink outputs go.
type Submission struct {
	Spec   *dag.Spec
	Splits map[string][][]Split
	// Output is where the DAG's results end up (reported in its status).
	Output string
	// Staging, when set, is where sink attempts commit instead of Output:
	// the AM promotes the staged files into Output once the DAG has
	// succeeded (package commit), so a failed DAG leaves Output as it was.
	Staging string
	Client  string
}
