package core

import (
	"fmt"
	"strings"
)

// TaskScheme chooses which DAG's queued attempt a free slot goes to
// (ebb.scheduler.scheme). Placement on workers is the allocator's; this is
// the order among DAGs.
type TaskScheme int

const (
	// TaskFIFO: DAGs by priority, then submission; each DAG's attempts in
	// topological order.
	TaskFIFO TaskScheme = iota
	// TaskFair: the DAG with the fewest running attempts goes first, so
	// concurrent DAGs share the workers evenly (Hadoop's Fair Scheduler in
	// spirit).
	TaskFair
	// TaskRAS: resource-aware scheduling with completion-time goals (Polo
	// et al., Middleware 2011): each control cycle plans per-DAG slots from
	// resource profiles and utilities; free room goes to the DAG furthest
	// below its plan.
	TaskRAS
)

var taskSchemeNames = []string{"fifo", "fair", "ras"}

func (s TaskScheme) String() string {
	if int(s) < len(taskSchemeNames) {
		return taskSchemeNames[s]
	}
	return fmt.Sprintf("TaskScheme(%d)", int(s))
}

// ParseTaskScheme reads an ebb.scheduler.scheme value.
func ParseTaskScheme(v string) (TaskScheme, error) {
	for i, n := range taskSchemeNames {
		if v == n {
			return TaskScheme(i), nil
		}
	}
	return 0, fmt.Errorf("ebb.scheduler.scheme = %q: want one of %s", v, strings.Join(taskSchemeNames, ", "))
}
