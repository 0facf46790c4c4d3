package sim

import "github.com/ebb-am/ebb/scheduler"

// hadoopReduceSlots is mapred.tasktracker.reduce.tasks.maximum's default
// in Hadoop 0.20 (mapred-default.xml): the reduce slots of a TaskTracker,
// whatever its map slots.
const hadoopReduceSlots = 2

// fairSlots is the RAS paper's baseline, Hadoop's Fair Scheduler of its
// era, as a task order: every node has maps map slots and reduces reduce
// slots, a task takes a slot of its own type only (a reduce never holds a
// map slot), and a free slot goes to the job with the fewest running tasks
// of that type (fair shares per task type, equal weights), earliest
// submitted among equals. Memory does not limit it: each task is reserved
// 1/(maps + reduces) of its node so that every slot fits, and uses its
// profile's memory, whatever that adds up to (contention_paper.go makes
// the excess page). Not modelled: one assignment per heartbeat, delay
// scheduling for locality, preemption.
//
// It is the sim's baseline, not an ebb.scheduler.scheme: the sim builds
// it for fair-slots-K. It reads the snapshot's nodes and kinds, so it
// says it is resource-aware (the core then keeps a RAS plan it ignores).
type fairSlots struct{ maps, reduces int }

var _ scheduler.TaskOrder = fairSlots{}

func (fairSlots) Name() string        { return "fair-slots" }
func (fairSlots) ResourceAware() bool { return true }

func (f fairSlots) Next(s *scheduler.OrderSnapshot) (scheduler.Pick, bool) {
	best, bestRunning := -1, 0
	var bestFits []bool
	for i, h := range s.Heads {
		running := h.Demand.RunningProducers
		if h.Kind == scheduler.RASConsumer {
			running = h.Demand.RunningConsumers
		}
		if best >= 0 && running >= bestRunning {
			continue
		}
		if fits := f.freeSlots(s.Nodes, h); fits != nil {
			best, bestRunning, bestFits = i, running, fits
		}
	}
	if best < 0 {
		return scheduler.Pick{}, false
	}
	return scheduler.Pick{Head: best, Fits: bestFits}, true
}

// freeSlots marks the nodes with a free slot of h's type and room for its
// reservation; nil when there is none.
func (f fairSlots) freeSlots(nodes []scheduler.OrderNode, h scheduler.QueueHead) []bool {
	limit := f.maps
	if h.Kind == scheduler.RASConsumer {
		limit = f.reduces
	}
	var out []bool
	for i, n := range nodes {
		if n.FitsMB <= 0 || h.MemoryMB > n.FitsMB {
			continue
		}
		used := 0
		for _, a := range n.Running {
			if a.Kind == h.Kind {
				used++
			}
		}
		if used < limit {
			if out == nil {
				out = make([]bool, len(nodes))
			}
			out[i] = true
		}
	}
	return out
}
