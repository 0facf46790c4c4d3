package core

import (
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// CoreOptions are the Core's settings, built by the caller from the
// configuration (the Core never reads configuration itself).
type CoreOptions struct {
	// IDPrefix makes DAG ids unique across AMs (e.g. the application id).
	IDPrefix string
	// MaxConcurrentDAGs: more DAGs wait in SUBMITTED (mr3.am.max.num.concurrent.dags).
	MaxConcurrentDAGs int
	// MaxFailedAttempts per task before its DAG fails (mr3.am.task.max.failed.attempts).
	MaxFailedAttempts int
	// WorkerTimeout: a worker silent this long is lost and stopped, even
	// with its stream open (mr3.heartbeat.container.timeout.ms; loseSilent).
	WorkerTimeout time.Duration
	// TaskTimeout: an attempt no heartbeat lists and no progress report
	// names this long fails, unless its worker is as silent
	// (mr3.heartbeat.task.timeout.ms).
	TaskTimeout time.Duration
	// IdleTimeout: an idle worker is stopped after this (mr3.container.idle.timeout.ms).
	IdleTimeout time.Duration
	// MaxWorkers caps workers per group (0 = unlimited).
	MaxWorkers int
	// MaxPendingRequests caps the workers a group has asked for and not yet
	// received (mr3.am.resourcescheduler.max.requests.per.taskscheduler;
	// 0 = no cap): more are asked for as these arrive.
	MaxPendingRequests int
	// Blacklisting stops using a node where attempts keep failing
	// (mr3.am.node-blacklisting.enabled): once BlacklistMinFailures attempts
	// failed there and they are at least BlacklistFailurePercent of the
	// attempts that ended there (mr3.am.maxtaskfailure.percent), the node
	// drains and is avoided for new workers (on YARN: the RM's blacklist).
	Blacklisting            bool
	BlacklistFailurePercent int
	// Allocator places attempts on nodes (ebb.packing.scheme).
	Allocator packing.Allocator
	// Scaling chooses how groups grow and shrink.
	Scaling ScalingMode
	// Tasks chooses which DAG's attempt runs next (ebb.scheduler.scheme;
	// nil: fifo).
	Tasks scheduler.TaskOrder
	// ReservePercent: in an autoscaled group under fifo or fair order, the
	// share of the group's worker memory a DAG already running attempts
	// leaves free for DAGs that run none (ebb.scheduler.reserve.percent;
	// reserve.go). 0: none.
	ReservePercent int
	// SlowStart is the fraction of a scatter-gather edge's producer tasks
	// that must have succeeded before its consumers start (slowstart.go);
	// 0 or 1: all of them. A world that sets it must carry out
	// AttemptInputs.
	SlowStart float64
	// RASCycle is the resource-aware scheduler's control cycle
	// (ebb.ras.control.cycle.secs).
	RASCycle time.Duration
	// BacklogTimeout is ScaleSparkDA's backlog timeout (Spark: 1 s).
	BacklogTimeout time.Duration
	// Autoscale configures ScaleAutoscaler (the mr3.auto.scale.* keys).
	Autoscale scheduler.AutoscaleConfig
	// Recycle is the ContainerScheduler (mr3.container.scheduler.scheme).
	Recycle scheduler.RecycleScheme
	// RecycleInterval is how often fair recycling rebalances
	// (mr3.check.memory.usage.event.interval.secs).
	RecycleInterval time.Duration
	// RemoveEmptyKind (mr3.container.scheduler.remove.empty.kind).
	RemoveEmptyKind bool
	// BillingStartOffset (ebb.billing.start.offset.secs): with a billing
	// period and no NodesBilled (YARN, local), a node's paid periods start
	// this long before the AM first saw it (billing.go).
	BillingStartOffset time.Duration
	// Allocation is the cluster's container sizes, for the groups whose
	// DAG leaves the worker size to ebb (scheduler.SizeWorker). A world
	// that learns them later (YARN, at registration) calls SetAllocation.
	Allocation scheduler.AllocationLimits
	// WorkerTasks: an ebb-sized worker holds at most this many of its
	// DAG's largest tasks (ebb.worker.auto.size.max.tasks; 0 = 4).
	WorkerTasks int
	// MemoryRetry: how a task killed for exceeding its memory is retried
	// (ebb.task.memory.retry.factor, ebb.task.memory.retry.max.mb).
	MemoryRetry scheduler.MemoryRetry
	// RetainDAGs: finished DAGs kept whole (ebb.am.dag.retained.count;
	// 0 = DefaultRetainDAGs); RetainDAGsFor: and at most this long after
	// they ended (ebb.am.dag.retained.secs; 0 = no limit);
	// RetainSummaries: finished DAGs listed at all, whole or compacted
	// (ebb.am.dag.summary.retained.count; 0 = DefaultRetainSummaries).
	// See retain.go.
	RetainDAGs      int
	RetainDAGsFor   time.Duration
	RetainSummaries int
}

func (o *CoreOptions) fill() {
	if o.BlacklistFailurePercent <= 0 {
		o.BlacklistFailurePercent = 50
	}
	if o.MaxConcurrentDAGs <= 0 {
		o.MaxConcurrentDAGs = 128
	}
	if o.MaxFailedAttempts <= 0 {
		o.MaxFailedAttempts = 3
	}
	if o.WorkerTimeout <= 0 {
		o.WorkerTimeout = 10 * time.Minute
	}
	if o.TaskTimeout <= 0 {
		o.TaskTimeout = 2 * time.Minute
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.RecycleInterval <= 0 {
		o.RecycleInterval = 10 * time.Second
	}
	if o.BacklogTimeout <= 0 {
		o.BacklogTimeout = time.Second
	}
	if o.WorkerTasks <= 0 {
		o.WorkerTasks = scheduler.DefaultWorkerTasks
	}
	if o.MemoryRetry.Factor <= 0 {
		o.MemoryRetry.Factor = scheduler.DefaultMemoryRetryFactor
	}
	if o.RetainDAGs <= 0 {
		o.RetainDAGs = DefaultRetainDAGs
	}
	if o.RetainSummaries <= 0 {
		o.RetainSummaries = DefaultRetainSummaries
	}
}

// SetAllocation tells the Core the cluster's container sizes once the
// world knows them (on YARN: the registration's maximum capability and
// yarn.scheduler.minimum-allocation-mb). Groups sized before keep their
// size; groups sized later use these.
func (c *Core) SetAllocation(l AllocationLimits) { c.opts.Allocation = l }

// AllocationLimits are the cluster's container sizes (scheduler's type,
// named here so the worlds need not import scheduler).
type AllocationLimits = scheduler.AllocationLimits

// Core is the AM's deterministic state machine. Its exported methods are
// events; each may append Actions, which the caller drains with Actions().
// It is not safe for concurrent use: one loop owns it.
type Core struct {
	opts    CoreOptions
	now     time.Time
	seq     int // groups and DAGs in creation order
	dagSeq  int // DAG ids
	dags    map[string]*dagRun
	active  []*dagRun // SUBMITTED and RUNNING, in scheduling order
	groups  map[string]*group
	gorder  []*group
	workers map[string]*workerRun
	nodes   map[string]*nodeRun
	// waitingDrains are draining nodes whose scale-in still waits for
	// DAGs; their workers take those DAGs' attempts (drain.go).
	waitingDrains map[*nodeRun]struct{}
	// blacklist: nodes given up on, with the reason (blacklist.go); kept
	// after their last worker is gone so no new worker goes there.
	blacklist map[string]string
	nodeStats map[string]*nodeStats
	// cluster: every node the world reported (YARN's node reports) and its
	// memory, including nodes where this AM has no worker (cluster.go).
	cluster map[string]int64
	attempt map[string]*attemptRun
	actions []Action
	// quietUntil: no running attempt can miss the task timeout before
	// then (checkTimeouts).
	quietUntil time.Time
	ended      []*dagRun // finished DAGs kept whole, oldest first, for status queries
	// summaries: finished DAGs compacted to their status (retain.go).
	summaries summaries

	transitions []Transition
	// paid: when each node's paid billing period ends, as a world that
	// knows reports it (NodesBilled; the sim's cloud); nil when none does.
	paid map[string]time.Time
	// firstSeen: when each node first held a worker of this AM, kept
	// after its last worker leaves (billing.go).
	firstSeen map[string]time.Time
	recycled  int
	lastFair  time.Time
	rasPlan   *scheduler.RASPlan
	journal   journal // what the status UI shows beyond the live state (journal.go)

	// Recovery (recover.go): the wait for workers of an earlier attempt,
	// and the tasks that succeeded since TakeJournal.
	rec        *recovery
	journaling bool
	succeeded  []TaskDone
}

// NewCore returns an empty Core.
func NewCore(opts CoreOptions) (*Core, error) {
	opts.fill()
	if opts.Tasks == nil {
		o, err := scheduler.NewTaskOrder("fifo")
		if err != nil {
			return nil, err
		}
		opts.Tasks = o
	}
	if opts.Allocator == nil {
		a, err := packing.New("uniform", packing.Options{})
		if err != nil {
			return nil, err
		}
		opts.Allocator = a
	}
	if opts.Scaling == ScaleAutoscaler {
		if err := opts.Autoscale.Validate(); err != nil {
			return nil, err
		}
	}
	return &Core{
		opts:          opts,
		firstSeen:     map[string]time.Time{},
		dags:          map[string]*dagRun{},
		groups:        map[string]*group{},
		workers:       map[string]*workerRun{},
		nodes:         map[string]*nodeRun{},
		waitingDrains: map[*nodeRun]struct{}{},
		blacklist:     map[string]string{},
		nodeStats:     map[string]*nodeStats{},
		cluster:       map[string]int64{},
		attempt:       map[string]*attemptRun{},
	}, nil
}

func (c *Core) emit(a Action) { c.actions = append(c.actions, a) }

func (c *Core) logf(format string, args ...any) {
	c.emit(Log{Msg: fmt.Sprintf(format, args...)})
}

func (c *Core) warnf(format string, args ...any) {
	c.emit(Log{Warn: true, Msg: fmt.Sprintf(format, args...)})
}

func (c *Core) advance(now time.Time) {
	if now.After(c.now) {
		c.now = now
	}
}

// Tick advances time: timeouts, idle workers, DAG admission, scheduling.
func (c *Core) Tick(now time.Time) {
	c.advance(now)
	c.checkTimeouts()
	c.recoveryTick()
	c.admit()
	c.rasCycle()
	c.schedule()
	c.autoscale()
	c.recycle()
	c.schedule()
	c.stopDrained()
	c.reapIdle()
	c.removeEmptyGroups()
	c.updateWanted()
	c.sampleUsage()
	c.retain()
}

// Now is the latest time the Core has seen.
func (c *Core) Now() time.Time { return c.now }

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
