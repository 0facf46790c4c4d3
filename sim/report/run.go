package report

import "time"

// Run is what one policy did over one trace.
type Run struct {
	Policy  string
	Samples []Sample
	Jobs    []JobResult
	// NodeSeconds is the seconds every node existed, PaidSeconds the
	// seconds they were billed for (lives rounded up to the billing
	// granularity), Cost what that cost.
	NodeSeconds, PaidSeconds, Cost float64
	// TaskMBSeconds is the sum over tasks of memory x run time.
	TaskMBSeconds float64
	// NodeMemoryMB is the memory of one node, for the lower bound.
	NodeMemoryMB int64
	// FirstNode is the earliest a node of this run can be up: 0 for a
	// cluster there from the start (static, the oracle), the provisioning
	// delay for a policy that starts with no node (floor.go).
	FirstNode time.Duration
	// WorkerMoves counts workers recycled from one group to another of
	// their kind (mr3.container.scheduler.scheme fifo or fair).
	WorkerMoves int
}

// Sample is the cluster at one moment.
type Sample struct {
	At         time.Duration
	Nodes      int   // nodes in use
	UsedMB     int64 // memory of running tasks
	CapacityMB int64 // memory of the nodes in use
}

// JobResult is how one job went.
type JobResult struct {
	ID             string
	Submit, Finish time.Duration
	Goal           time.Duration // 0: none
	Completed      bool
}

// Met reports whether the job completed by its goal (false without one).
func (j JobResult) Met() bool { return j.Goal > 0 && j.Completed && j.JCT() <= j.Goal }

// JCT is the job's completion time.
func (j JobResult) JCT() time.Duration { return j.Finish - j.Submit }
