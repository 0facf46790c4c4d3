package core

import (
	"fmt"
	"time"

	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// CoreOptions are the Core's settings, built from the configuration by
// am/amconf (the Core never reads configuration itself, and fills in no
// default: Validate says what it cannot work with).
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
	// IdleTimeout: an idle worker is stopped after this
	// (mr3.container.idle.timeout.ms); 0: at the first tick it is idle.
	IdleTimeout time.Duration
	// MaxWorkers caps workers per group (mr3.container.max.num.workers;
	// 0 = unlimited).
	MaxWorkers int
	// MaxPendingRequests caps the workers a group has asked for and not yet
	// received (mr3.am.resourcescheduler.max.requests.per.taskscheduler;
	// 0 = no cap): more are asked for as these arrive.
	MaxPendingRequests int
	// AskTimeout: a packed ask for a named node that no worker answered
	// within this long is given up, and the node counts as full for as
	// long again (ebb.packing.ask.timeout.ms; 0 = asks wait for ever).
	AskTimeout time.Duration
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
	// Tasks chooses which DAG's attempt runs next (ebb.scheduler.scheme).
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
	// StallKillPercent and StallKillInterval break a slow-start stall
	// (stall.go): that share of the gathering consumers, at least one,
	// is killed after the stall lasted StallKillInterval, and at most once
	// per interval (ebb.slowstart.preemption.percentage,
	// ebb.slowstart.preemption.interval.ms).
	StallKillPercent  int
	StallKillInterval time.Duration
	// RASCycle is the resource-aware scheduler's control cycle
	// (ebb.ras.control.cycle.secs).
	RASCycle time.Duration
	// BacklogTimeout is ScaleSparkDA's backlog timeout (Spark: 1 s; no
	// key: only the simulator's spark-da policy scales so).
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
	// DAG's largest tasks (ebb.worker.auto.size.max.tasks).
	WorkerTasks int
	// MemoryRetry: how a task killed for exceeding its memory is retried
	// (ebb.task.memory.retry.factor, ebb.task.memory.retry.max.mb).
	MemoryRetry scheduler.MemoryRetry
	// RetainDAGs: finished DAGs kept whole (ebb.am.dag.retained.count);
	// RetainDAGsFor: and at most this long after they ended
	// (ebb.am.dag.retained.secs; 0 = no limit); RetainSummaries: finished
	// DAGs listed at all, whole or compacted
	// (ebb.am.dag.summary.retained.count).
	// See retain.go.
	RetainDAGs      int
	RetainDAGsFor   time.Duration
	RetainSummaries int
	// Uber: small DAGs in the AM's container (uber.go).
	Uber UberOptions
	// Speculation: backup attempts for stragglers (speculate.go).
	Speculation SpeculationOptions
	// NoInputLists leaves RunAttempt's AttemptSpec.Inputs empty, for a
	// world that fetches nothing (the simulator: no key). A consumer's
	// list names every producer task, so building it was half of what a
	// 24k-job replay allocated; the AM's worlds need it and leave this off.
	NoInputLists bool
}

// SpeculationOptions say when a running task gets a backup attempt, as
// LATE (Zaharia et al., OSDI 2008) picks them: the ebb.speculation.* keys.
type SpeculationOptions struct {
	// Enabled is the default of every vertex (a vertex's speculative: in
	// the DAG spec overrides it).
	Enabled bool
	// CapPercent and MinAllowed: at most the larger of MinAllowed and
	// CapPercent of a vertex's tasks (at least one) run a backup at once
	// (LATE's SpeculativeCap; Hadoop's DefaultSpeculator takes the larger
	// of mapreduce.job.speculative.minimum-allowed-tasks and its
	// proportional caps, Tez's tez.am.minimum.allowed.speculative.tasks
	// the same).
	CapPercent int
	MinAllowed int
	// MinRuntime: an attempt that has run less than this is no candidate;
	// its progress rate says too little yet.
	MinRuntime time.Duration
	// Multiplier: a candidate's estimated run time is more than this many
	// times the median of its vertex's (Spark's spark.speculation.multiplier).
	Multiplier float64
	// SlowNodeWait: an attempt of a DAG with slow nodes waits this long
	// for room off them before it takes room on one (slownodes.go): delay
	// scheduling (Zaharia et al., EuroSys 2010) with the allocator's own
	// locality delay, ebb.packing.locality.delay.ms.
	SlowNodeWait time.Duration
}

// allowed is how many of a vertex of n tasks may run a backup at once.
func (o SpeculationOptions) allowed(n int) int {
	return max(1, o.MinAllowed, n*o.CapPercent/100)
}

// slowStart reports whether consumers may start before all their
// producers succeeded: SlowStart strictly between 0 and 1.
func (o *CoreOptions) slowStart() bool { return o.SlowStart > 0 && o.SlowStart < 1 }

// OptionError is one option the Core cannot work with: the field, the key
// it comes from (empty for the simulator's own), its value and what would
// be accepted.
type OptionError struct {
	Field, Key, Value, Allowed string
}

func (e *OptionError) Error() string {
	key := ""
	if e.Key != "" {
		key = " (" + e.Key + ")"
	}
	return fmt.Sprintf("core option %s%s = %s: want %s", e.Field, key, e.Value, e.Allowed)
}

// optionRule is one check of Validate: when applies says the option is
// used at all under the other options.
type optionRule struct {
	field, key, allowed string
	value               func(o *CoreOptions) any
	ok                  func(o *CoreOptions) bool
}

// optionRules are the Core's own bounds; the key table's bounds (conf)
// are at least as strict, so a configuration conf accepted always passes.
// A zero value has the meaning its field's comment gives, or is refused
// here: the Core never turns it into some default.
var optionRules = []optionRule{
	{"MaxConcurrentDAGs", "mr3.am.max.num.concurrent.dags", ">= 1",
		func(o *CoreOptions) any { return o.MaxConcurrentDAGs }, func(o *CoreOptions) bool { return o.MaxConcurrentDAGs >= 1 }},
	{"MaxFailedAttempts", "mr3.am.task.max.failed.attempts", ">= 1",
		func(o *CoreOptions) any { return o.MaxFailedAttempts }, func(o *CoreOptions) bool { return o.MaxFailedAttempts >= 1 }},
	{"WorkerTimeout", "mr3.heartbeat.container.timeout.ms", "> 0",
		func(o *CoreOptions) any { return o.WorkerTimeout }, func(o *CoreOptions) bool { return o.WorkerTimeout > 0 }},
	{"TaskTimeout", "mr3.heartbeat.task.timeout.ms", "> 0",
		func(o *CoreOptions) any { return o.TaskTimeout }, func(o *CoreOptions) bool { return o.TaskTimeout > 0 }},
	{"IdleTimeout", "mr3.container.idle.timeout.ms", ">= 0 (0: at once)",
		func(o *CoreOptions) any { return o.IdleTimeout }, func(o *CoreOptions) bool { return o.IdleTimeout >= 0 }},
	{"MaxWorkers", "mr3.container.max.num.workers", ">= 0 (0: unlimited)",
		func(o *CoreOptions) any { return o.MaxWorkers }, func(o *CoreOptions) bool { return o.MaxWorkers >= 0 }},
	{"MaxPendingRequests", "mr3.am.resourcescheduler.max.requests.per.taskscheduler", ">= 0 (0: no cap)",
		func(o *CoreOptions) any { return o.MaxPendingRequests }, func(o *CoreOptions) bool { return o.MaxPendingRequests >= 0 }},
	{"AskTimeout", "ebb.packing.ask.timeout.ms", ">= 0 (0: asks wait for ever)",
		func(o *CoreOptions) any { return o.AskTimeout }, func(o *CoreOptions) bool { return o.AskTimeout >= 0 }},
	{"BlacklistFailurePercent", "mr3.am.maxtaskfailure.percent", "1 to 100 with blacklisting on",
		func(o *CoreOptions) any { return o.BlacklistFailurePercent },
		func(o *CoreOptions) bool {
			return !o.Blacklisting || (o.BlacklistFailurePercent >= 1 && o.BlacklistFailurePercent <= 100)
		}},
	{"Allocator", "ebb.packing.scheme", "an allocator",
		func(o *CoreOptions) any { return o.Allocator }, func(o *CoreOptions) bool { return o.Allocator != nil }},
	{"Tasks", "ebb.scheduler.scheme", "a task order",
		func(o *CoreOptions) any { return o.Tasks }, func(o *CoreOptions) bool { return o.Tasks != nil }},
	{"ReservePercent", "ebb.scheduler.reserve.percent", "0 to 100",
		func(o *CoreOptions) any { return o.ReservePercent },
		func(o *CoreOptions) bool { return o.ReservePercent >= 0 && o.ReservePercent <= 100 }},
	{"SlowStart", "ebb.slowstart.completed.producers", "0 to 1 (0: off)",
		func(o *CoreOptions) any { return o.SlowStart }, func(o *CoreOptions) bool { return o.SlowStart >= 0 && o.SlowStart <= 1 }},
	{"StallKillPercent", "ebb.slowstart.preemption.percentage", "1 to 100 under slow start",
		func(o *CoreOptions) any { return o.StallKillPercent },
		func(o *CoreOptions) bool {
			return !o.slowStart() || (o.StallKillPercent >= 1 && o.StallKillPercent <= 100)
		}},
	{"StallKillInterval", "ebb.slowstart.preemption.interval.ms", "> 0 under slow start",
		func(o *CoreOptions) any { return o.StallKillInterval },
		func(o *CoreOptions) bool { return !o.slowStart() || o.StallKillInterval > 0 }},
	{"RASCycle", "ebb.ras.control.cycle.secs", "> 0 under the ras order",
		func(o *CoreOptions) any { return o.RASCycle },
		func(o *CoreOptions) bool { return o.Tasks == nil || !o.Tasks.ResourceAware() || o.RASCycle > 0 }},
	{"BacklogTimeout", "", "> 0 when scaling as Spark's dynamic allocation",
		func(o *CoreOptions) any { return o.BacklogTimeout },
		func(o *CoreOptions) bool { return o.Scaling != ScaleSparkDA || o.BacklogTimeout > 0 }},
	{"RecycleInterval", "mr3.check.memory.usage.event.interval.secs", "> 0 with fair recycling",
		func(o *CoreOptions) any { return o.RecycleInterval },
		func(o *CoreOptions) bool { return o.Recycle != scheduler.RecycleFair || o.RecycleInterval > 0 }},
	{"WorkerTasks", "ebb.worker.auto.size.max.tasks", ">= 1",
		func(o *CoreOptions) any { return o.WorkerTasks }, func(o *CoreOptions) bool { return o.WorkerTasks >= 1 }},
	{"MemoryRetry.Factor", "ebb.task.memory.retry.factor", ">= 1",
		func(o *CoreOptions) any { return o.MemoryRetry.Factor }, func(o *CoreOptions) bool { return o.MemoryRetry.Factor >= 1 }},
	{"MemoryRetry.MaxMB", "ebb.task.memory.retry.max.mb", ">= 0 (0: the worker size)",
		func(o *CoreOptions) any { return o.MemoryRetry.MaxMB }, func(o *CoreOptions) bool { return o.MemoryRetry.MaxMB >= 0 }},
	{"RetainDAGs", "ebb.am.dag.retained.count", ">= 1",
		func(o *CoreOptions) any { return o.RetainDAGs }, func(o *CoreOptions) bool { return o.RetainDAGs >= 1 }},
	{"RetainDAGsFor", "ebb.am.dag.retained.secs", ">= 0 (0: no limit)",
		func(o *CoreOptions) any { return o.RetainDAGsFor }, func(o *CoreOptions) bool { return o.RetainDAGsFor >= 0 }},
	{"RetainSummaries", "ebb.am.dag.summary.retained.count", ">= 1",
		func(o *CoreOptions) any { return o.RetainSummaries }, func(o *CoreOptions) bool { return o.RetainSummaries >= 1 }},
	{"Uber.MaxTasks", "ebb.am.uber.max.tasks", ">= 1 with uber on",
		func(o *CoreOptions) any { return o.Uber.MaxTasks }, func(o *CoreOptions) bool { return !o.Uber.Enabled || o.Uber.MaxTasks >= 1 }},
	{"Uber.MaxInputBytes", "ebb.am.uber.max.input.mb", ">= 0 with uber on",
		func(o *CoreOptions) any { return o.Uber.MaxInputBytes }, func(o *CoreOptions) bool { return !o.Uber.Enabled || o.Uber.MaxInputBytes >= 0 }},
	{"Uber.MemoryMB", "ebb.am.uber.memory.mb", ">= 1 with uber on",
		func(o *CoreOptions) any { return o.Uber.MemoryMB }, func(o *CoreOptions) bool { return !o.Uber.Enabled || o.Uber.MemoryMB >= 1 }},
	{"Speculation.CapPercent", "ebb.speculation.cap.percent", "1 to 100",
		func(o *CoreOptions) any { return o.Speculation.CapPercent },
		func(o *CoreOptions) bool { return o.Speculation.CapPercent >= 1 && o.Speculation.CapPercent <= 100 }},
	{"Speculation.MinRuntime", "ebb.speculation.min.runtime.ms", ">= 0",
		func(o *CoreOptions) any { return o.Speculation.MinRuntime },
		func(o *CoreOptions) bool { return o.Speculation.MinRuntime >= 0 }},
	{"Speculation.MinAllowed", "ebb.speculation.min.allowed.tasks", ">= 0",
		func(o *CoreOptions) any { return o.Speculation.MinAllowed },
		func(o *CoreOptions) bool { return o.Speculation.MinAllowed >= 0 }},
	{"Speculation.SlowNodeWait", "ebb.packing.locality.delay.ms", ">= 0",
		func(o *CoreOptions) any { return o.Speculation.SlowNodeWait },
		func(o *CoreOptions) bool { return o.Speculation.SlowNodeWait >= 0 }},
	{"Speculation.Multiplier", "ebb.speculation.multiplier", ">= 1",
		func(o *CoreOptions) any { return o.Speculation.Multiplier },
		func(o *CoreOptions) bool { return o.Speculation.Multiplier >= 1 }},
}

// Validate returns the first option the Core cannot work with, as an
// *OptionError, or the autoscaler's own error for its settings.
func (o CoreOptions) Validate() error {
	for _, r := range optionRules {
		if !r.ok(&o) {
			return &OptionError{Field: r.field, Key: r.key, Value: fmt.Sprint(r.value(&o)), Allowed: r.allowed}
		}
	}
	if o.Scaling == ScaleAutoscaler {
		if err := o.Autoscale.Validate(); err != nil {
			return err
		}
	}
	return nil
}
