package core

import "time"

// Event is an input to the Core: a plain value, so the loop can queue it,
// record it (the event log) and a replay can feed the same values to
// another Core. The set is closed (the unexported method): every event is
// one of the types below, and Apply is the one way in.
type Event interface{ event() }

// Reply is what an event answers: the id of a submitted DAG, or why the
// Core refused the event. Most events answer nothing.
type Reply struct {
	DAGID string
	Err   error
}

// Tick: time passes (timeouts, idle workers, admission, scheduling).
type Tick struct{}

// WorkerRegistered: a worker connected (Info.NodeMB as the world knows
// the node, filled in by the loop).
type WorkerRegistered struct{ Info WorkerInfo }

// WorkerBeat: a worker's heartbeat, with the attempts it runs.
type WorkerBeat struct {
	Worker  string
	Running []string
	// Unhealthy, when set, says why the worker's local directories take
	// no more work (a full disk): its node is then as UNHEALTHY.
	Unhealthy string
}

// AttemptUpdated: an attempt's progress or end. Worker, when set, is the
// worker that reported it (a message is a heartbeat too); "" for an
// outcome the AM itself decided (an attempt that could not be delivered).
type AttemptUpdated struct {
	Worker string
	Update AttemptUpdate
}

// WorkerGone: a worker is lost. Exited says its process or container is
// known to have ended (the world saw it), not merely its connection.
type WorkerGone struct {
	Worker, Reason string
	Exited         bool
	// Preempted: the cluster killed it to give another queue its share
	// (YARN exit status -102) or a higher-priority pod its place
	// (Kubernetes' PreemptionByScheduler); counted, still no task failure.
	Preempted bool
	// Evicted: the cluster ended it for its own reasons (Kubernetes: a
	// drain through the Eviction API, the kubelet under node pressure,
	// the taint manager); counted apart from preemption, no task failure.
	Evicted bool
	// OOMKilledMB: the cluster killed its container at its memory limit,
	// this many MB (Kubernetes' OOMKilled): the attempts it ran fail on
	// the memory retry path.
	OOMKilledMB int64
	// A cause may come after the worker was lost to its closed connection
	// (lostcause.go): it is then counted against that loss.
}

// NodesReported: the cluster's nodes (replaces the earlier list).
type NodesReported struct{ Nodes []ClusterNode }

// NodesBilled: when each node's paid billing period ends, from a world
// that knows (the sim's cloud), for billing-aware scale-in. It replaces
// the earlier report; a node missing from it is taken as unknown.
type NodesBilled struct{ PaidUntil map[string]time.Time }

// GroupRefused: no container the world can give holds the group's
// workers; its DAGs fail with Reason.
type GroupRefused struct{ Group, Reason string }

// DAGArrived: a validated, resolved DAG (answers its id).
type DAGArrived struct{ Submission Submission }

// DAGKillRequested: a client or the AM kills a DAG.
type DAGKillRequested struct{ ID, Reason string }

// DAGOutputSettled: a finished DAG's output was promoted or aborted; its
// final state and diagnostics.
type DAGOutputSettled struct {
	ID          string
	State       DAGState
	Diagnostics string
}

// AutoscaleSet retunes the autoscalers of one group ("" = all).
type AutoscaleSet struct {
	Group                           string
	OutPercent, InPercent, MinHosts int
}

// AutoscaleTargetSet sets the latency target
// (ebb.auto.scale.target.p95.slowdown) of one group's autoscaler ("" = all).
type AutoscaleTargetSet struct {
	Group       string
	P95Slowdown float64
}

// AllocationSet: the cluster's container sizes (YARN tells them at
// registration).
type AllocationSet struct{ Limits AllocationLimits }

// DAGsRecovered: the DAGs of an earlier AM attempt, from its recovery log.
type DAGsRecovered struct {
	DAGs    []RecoveredDAG
	Options RecoverOptions
}

func (Tick) event()               {}
func (WorkerRegistered) event()   {}
func (WorkerBeat) event()         {}
func (AttemptUpdated) event()     {}
func (WorkerGone) event()         {}
func (NodesReported) event()      {}
func (GroupRefused) event()       {}
func (NodesBilled) event()        {}
func (DAGArrived) event()         {}
func (DAGKillRequested) event()   {}
func (DAGOutputSettled) event()   {}
func (AutoscaleSet) event()       {}
func (AutoscaleTargetSet) event() {}
func (AllocationSet) event()      {}
func (DAGsRecovered) event()      {}

// Apply feeds one event to the Core at now. The actions it causes wait
// for Drain.
func (c *Core) Apply(now time.Time, ev Event) Reply {
	var r Reply
	switch e := ev.(type) {
	case Tick:
		c.Tick(now)
	case WorkerRegistered:
		r.Err = c.WorkerRegistered(now, e.Info)
	case WorkerBeat:
		if c.fencedBeat(e.Worker) {
			break
		}
		c.WorkerHeartbeat(now, e.Worker, e.Running...)
		if e.Unhealthy != "" {
			c.workerUnhealthy(e.Worker, e.Unhealthy)
		}
	case AttemptUpdated:
		if c.fencedReport(e.Worker, e.Update.AttemptID, e.Update.Result.report()) {
			break
		}
		if e.Worker != "" {
			c.WorkerHeartbeat(now, e.Worker)
		}
		c.AttemptUpdate(now, e.Update)
	case WorkerGone:
		c.workerGone(now, e)
	case PreemptionWarned:
		c.PreemptionWarning(now, e)
	case HeadroomReported:
		c.SetHeadroom(now, e.MemoryMB)
	case NodesReported:
		c.SetClusterNodes(now, e.Nodes)
	case NodeChanged:
		c.NodeStateChanged(now, e)
	case NodesBilled:
		c.paid = e.PaidUntil
	case GroupRefused:
		c.FailGroup(now, e.Group, e.Reason)
	case DAGArrived:
		r.DAGID, r.Err = c.SubmitDAG(now, e.Submission)
	case DAGKillRequested:
		r.Err = c.KillDAG(now, e.ID, e.Reason)
	case DAGOutputSettled:
		r.Err = c.DAGSettled(now, e.ID, e.State, e.Diagnostics)
	case AutoscaleSet:
		r.Err = c.SetThresholds(e.Group, e.OutPercent, e.InPercent, e.MinHosts)
	case AutoscaleTargetSet:
		r.Err = c.SetTarget(e.Group, e.P95Slowdown)
	case AllocationSet:
		c.SetAllocation(e.Limits)
	case DAGsRecovered:
		r.Err = c.Recover(now, e.DAGs, e.Options)
	}
	return r
}
