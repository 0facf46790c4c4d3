package scheduler

// TaskOrder decides which DAG's queued attempt starts next in a
// ContainerGroup (ebb.scheduler.scheme). It chooses the attempt, never the
// node: the AM hands the attempt to the packing allocator, which picks
// among the nodes where it fits, so ebb.packing.scheme holds under every
// order. The AM calls Next again after each start, with a fresh snapshot,
// until Next says no or nothing more fits.
//
// Implementations are pure: they keep no state between calls and do not
// modify the snapshot.
type TaskOrder interface {
	// Name is the order's ebb.scheduler.scheme value.
	Name() string
	// ResourceAware reports whether Next reads the snapshot's resource
	// fields (QueueHead.Kind and Profile, Nodes, Plan). The AM fills them,
	// and keeps a RASPlan current every control cycle, only for such an
	// order.
	ResourceAware() bool
	// Next picks one of s.Heads, or ok=false when none should start now.
	Next(s *OrderSnapshot) (p Pick, ok bool)
}

// OrderSnapshot is what a TaskOrder sees of one ContainerGroup.
type OrderSnapshot struct {
	// Heads are the DAGs with queued attempts, in fifo order (higher
	// priority first, then submission), each with its next attempt. DAGs
	// whose attempts found no room too often in this pass are left out.
	Heads []QueueHead
	// Nodes are the nodes holding the group's workers, in the allocator's
	// order (resource-aware orders only).
	Nodes []OrderNode
	// Plan is the current resource-aware plan (resource-aware orders only).
	Plan RASPlan
}

// QueueHead is one DAG's next queued attempt.
type QueueHead struct {
	DAG      string
	Running  int   // the DAG's attempts running now
	MemoryMB int64 // the attempt's memory
	// Resource-aware orders only: the attempt's kind, and the profile it
	// would run with if it started now, and the DAG's tasks by kind now.
	Kind    RASKind
	Profile Profile
	Demand  RASDemand
}

// OrderNode is one node holding the group's workers.
type OrderNode struct {
	ID string
	// FitsMB is the largest attempt one of the group's workers there can
	// take now (packing.Node.FitsMB).
	FitsMB int64
	// Running are all the attempts running on the node, of any group
	// (needed only where FitsMB > 0: a node with no free memory takes no
	// attempt, whatever its load).
	Running []RASAttempt
}

// Pick is a TaskOrder's answer: whose attempt goes next and, for orders
// with a resource model of their own, where it may go.
type Pick struct {
	Head int // index into OrderSnapshot.Heads
	// Fits, when not nil, says per OrderSnapshot.Nodes entry whether the
	// attempt may start there beyond what memory allows (ras: its profile
	// fits in what the node's running attempts leave). The allocator
	// chooses only among these nodes.
	Fits []bool
	// Preferred are nodes for the allocator to rank first (ras: those
	// where the plan wants more of the DAG's tasks of this kind).
	Preferred []string
}

// fifo takes DAGs in priority, then submission order: the first DAG gets
// every slot it can use before the next gets any. Within a DAG, attempts
// go in topological order (the AM's per-DAG queue).
type fifo struct{}

func (fifo) Name() string        { return "fifo" }
func (fifo) ResourceAware() bool { return false }

func (fifo) Next(s *OrderSnapshot) (Pick, bool) {
	return Pick{}, len(s.Heads) > 0
}

// fair takes the DAG with the fewest running attempts, earliest in fifo
// order among equals, so concurrent DAGs share the workers evenly
// (Hadoop's Fair Scheduler in spirit).
type fair struct{}

func (fair) Name() string        { return "fair" }
func (fair) ResourceAware() bool { return false }

func (fair) Next(s *OrderSnapshot) (Pick, bool) {
	best := -1
	for i, h := range s.Heads {
		if best < 0 || h.Running < s.Heads[best].Running {
			best = i
		}
	}
	return Pick{Head: best}, best >= 0
}
