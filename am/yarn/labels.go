package yarn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ebb-am/ebb/dag"
)

// Node labels (issue 23, item 4): the AM's container and each group's
// workers may run in a labelled partition of the cluster. An ask naming a
// label the cluster does not have is refused by the RM (the allocate call
// fails, heartbeat after heartbeat) or, for the AM, fails the submission;
// so an unknown label is refused before: at submit (the gateway), when a
// DAG reaches the AM (CheckSpec), and when a group asks for workers.

// Labels are the cluster's node labels (partitions), as the RM's
// getClusterNodeLabels lists them, sorted. Known is false when they could
// not be learned: then nothing is refused for its label.
type Labels struct {
	Names []string
	Known bool
}

// UnknownLabel says why label cannot be asked for ("" when it can: it is
// empty, the cluster has it, or the cluster's labels are not known).
func (l Labels) UnknownLabel(label string) string {
	if label == "" || !l.Known || slices.Contains(l.Names, label) {
		return ""
	}
	return fmt.Sprintf("node label %q: the cluster has no such label (%s)", label, l)
}

// String lists the labels as the refusals name them.
func (l Labels) String() string {
	if len(l.Names) == 0 {
		return "its labels: none; node labels are off, or none was added (yarn rmadmin -addToClusterNodeLabels)"
	}
	return "its labels: " + strings.Join(l.Names, ", ")
}

// CheckGroupLabel refuses a DAG whose containerGroup.nodeLabel the cluster
// does not have, naming the field.
func (l Labels) CheckGroupLabel(spec *dag.Spec) error {
	if why := l.UnknownLabel(spec.Group.NodeLabel); why != "" {
		return &LabelError{Field: "containerGroup.nodeLabel", Reason: why}
	}
	return nil
}

// LabelError is a node label the cluster does not have, where it was
// given (a DAG's field or a configuration key).
type LabelError struct {
	Field  string
	Reason string
}

func (e *LabelError) Error() string { return e.Field + ": " + e.Reason }
