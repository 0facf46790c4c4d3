package core

import (
	"time"

	"github.com/ebb-am/ebb/dag"
)

// DAGState is where a DAG is in its life.
type DAGState int

const (
	DAGSubmitted DAGState = iota // accepted, waiting for a concurrency slot
	DAGRunning
	DAGSucceeded
	DAGFailed
	DAGKilled
)

var dagStateNames = []string{"SUBMITTED", "RUNNING", "SUCCEEDED", "FAILED", "KILLED"}

func (s DAGState) String() string { return dagStateNames[s] }

// Done reports whether the DAG has ended.
func (s DAGState) Done() bool { return s >= DAGSucceeded }

// taskState is a byte, beside taskRun.released, so that the two share a
// word: a taskRun and its queue entry are what a queued task costs.
type taskState int8

const (
	taskWaiting   taskState = iota // inputs not ready
	taskQueued                     // waits in its group's queue for a worker (no attempt record yet)
	taskRunning                    // an attempt runs
	taskSucceeded                  // its output exists on a worker (or was committed)
)

type dagRun struct {
	id       string
	seq      int
	spec     *dag.Spec
	sub      Submission
	state    DAGState
	diag     string
	submit   time.Time
	start    time.Time
	finish   time.Time
	group    *group
	vertices []*vertexRun
	byTopo   []*vertexRun // the vertices in topological order (vertexRun.topo), how a queue's key names a task
	byName   map[string]*vertexRun
	pending  int // tasks not yet succeeded
	running  int // attempts running
	failed   int // failed attempts (all tasks)
	// spec counts this DAG's backup attempts (speculate.go).
	speculation SpeculationCounts
	// slowNodes: nodes where an attempt of this DAG straggled
	// (speculate.go): no backup goes there, and new attempts avoid them
	// while another node has room (slownodes.go).
	slowNodes map[string]struct{}
	ramp      string
	// recovered: rebuilt from the recovery log by a new AM attempt;
	// recovering: and still waiting for the earlier attempt's workers.
	recovered  bool
	recovering bool
	// stallHeld: consumers were killed to break a slow-start stall; none
	// starts before its inputs are complete until no producer is queued
	// (stall.go).
	stallHeld bool
	// uber: the DAG is small and runs on the in-AM worker (uber.go).
	uber bool
	// attemptTime / attemptsDone: the observed mean attempt duration, for
	// predictive scale-out and resource-aware scheduling.
	attemptTime  time.Duration
	attemptsDone int
	// producerTime / producersDone: the same over producer (map-like)
	// attempts only, the paper's s_req evidence (ras.go).
	producerTime  time.Duration
	producersDone int
	// notes are lines for the DAG's diagnostics while it runs (a task
	// retried with more memory); moreNotes counts those beyond maxNotes.
	notes     []string
	moreNotes int
}

type edgeRef struct {
	typ   dag.EdgeType
	other *vertexRun // the producer (in-edges) or consumer (out-edges)
}

type vertexRun struct {
	dag       *dagRun
	spec      *dag.VertexSpec
	topo      int // position in topological order, for queue order
	tasks     []*taskRun
	in, out   []edgeRef
	succeeded int
	sink      bool
	// doneTime / doneN: this vertex's finished attempts, the per-kind
	// duration the autoscaler's work estimate uses (estimate.go).
	doneTime time.Duration
	doneN    int
	// doneMax: its slowest succeeded attempt, its share of the DAG's
	// measured critical path (criticalPath).
	doneMax time.Duration
	// doneRates: the progress rate (1 / run time in seconds) of each of
	// its succeeded attempts, the finished half of speculation's
	// comparison (speculate.go).
	doneRates []float64
	// counters: the counters of its tasks that reported some, by task
	// index (counters.go).
	counters map[int][]Counter
}

type taskRun struct {
	vertex *vertexRun
	index  int
	state  taskState
	// released: every consumer has finished with the output, so its
	// worker no longer counts it as needed (it may still serve it).
	// Beside state, and the two counts int32, so that the four share
	// two words: a million queued tasks are a million taskRuns.
	released bool
	attempts int32 // attempts made
	failures int32 // attempts that counted as failures
	current  *attemptRun
	// backup: a speculative attempt racing current (speculate.go); nil
	// unless the task is running.
	backup *attemptRun
	output *attemptRun // the succeeded attempt whose output serves consumers
	// askMB is the memory its next attempt asks for; 0 until an attempt
	// was killed for exceeding its memory (the vertex's memoryMB).
	askMB int64
	// queuedAt: when it was last queued, what the allocator's locality
	// delay counts from. A queued task has no attemptRun: the attempt
	// (number attempts-1) is created when it is placed (place), so a
	// queue of a million tasks holds no attempt records, ids or id-map
	// entries.
	queuedAt time.Time
}

// memoryMB is what t's next attempt asks for.
func (t *taskRun) memoryMB() int64 {
	if t.askMB > 0 {
		return t.askMB
	}
	return t.vertex.spec.MemoryMB
}

type attemptRun struct {
	id       string
	task     *taskRun
	number   int
	worker   *workerRun
	started  time.Time
	lastSeen time.Time // last progress report
	progress float64
	// progressRan: its run time when progress was reported, so that a
	// rate (progress / progressRan) does not fall between two reports.
	progressRan time.Duration
	profile     *dag.Profile // the resource profile it runs with now
	// gathered: its run time when its last input came under slow start,
	// which speculation does not count as work (speculate.go).
	gathered time.Duration
	// askMB is the memory it asked for when it differs from its vertex's
	// (a retry after a kill for memory; 0: the vertex's memoryMB).
	askMB int64
	// gathering: started under slow start, some inputs still to come
	// (slowstart.go). Beside the other flags, so that the struct stays in
	// the allocator's 160-byte size class.
	gathering bool
	// speculative: a backup attempt launched for a straggler; committing:
	// a sink attempt granted its commit (speculate.go).
	speculative bool
	committing  bool
	// adopted: started by an earlier AM attempt and taken over
	// (recover.go); its worker may report a kill that attempt asked for.
	adopted bool
	// rec is the number of its record in the journal (0: none yet), set
	// as its RunAttempt is drained (observe).
	rec int64
}

func (a *attemptRun) memoryMB() int64 {
	if a.askMB > 0 {
		return a.askMB
	}
	return a.task.vertex.spec.MemoryMB
}

type workerRun struct {
	info   WorkerInfo
	group  *group
	node   *nodeRun
	freeMB int64
	// running: its attempts, a few, so a list (a set cost a map insert
	// and delete per attempt); a set's order was random, so nothing
	// may depend on theirs.
	running  []*attemptRun
	outputs  map[*dagRun]int // succeeded outputs held, per DAG
	lastSeen time.Time
	idleFrom time.Time // when it last became idle (no attempts, no needed outputs)
	draining bool      // takes no new attempts (scale-in, stop, fair recycling)
	// recycleTo: a fair rebalancing chose this worker for another group;
	// it moves there once free.
	recycleTo *group
	stopping  bool // StopWorker sent
	gone      bool // lost: no longer in Core.workers (WorkerLost)
}

func (w *workerRun) idle() bool { return len(w.running) == 0 && len(w.outputs) == 0 }

type nodeRun struct {
	id         string
	capacityMB int64
	usedMB     int64 // memory of running attempts on this node
	workers    map[*workerRun]struct{}
	// groups: the node as each group with a worker here sees it
	// (group.addWorker and removeWorker keep it), whose entries a change
	// of usage refreshes.
	groups   []*groupNode
	draining bool
	drain    *drainState
}

// ParseDAGState is String's inverse (a state read back from the wire).
func ParseDAGState(name string) (DAGState, bool) {
	for i, n := range dagStateNames {
		if n == name {
			return DAGState(i), true
		}
	}
	return 0, false
}
