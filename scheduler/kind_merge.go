package scheduler

import (
	"fmt"
	"strings"
)

// GroupConflictError is a group named again with other properties.
type GroupConflictError struct {
	Name    string
	Differs []string // property names, as GroupProps.Diff gives them
}

func (e *GroupConflictError) Error() string {
	return fmt.Sprintf("containerGroup %q is already in use with a different %s; use another name or the same properties",
		e.Name, strings.Join(e.Differs, ", "))
}

// MergeGroup is the rule for a DAG that names a group already in use:
// have is that group's properties, p what the DAG asks for. Identical
// properties make one group, shared (nil). Any difference is a
// *GroupConflictError naming the properties that differ.
//
// The same name with different properties is rejected rather than made a
// second, distinct group: a DAG that names a group expects the workers
// that name stands for, and quietly giving it a group of the same name
// with another DAG's worker sizes or environment would make one DAG run
// with the other's settings (or make the name ambiguous on the status page
// and in logs). The client sees the conflict at submission and can pick
// another name. A name not in use is simply a new group.
func MergeGroup(have, p GroupProps) error {
	if d := have.Diff(p); len(d) > 0 {
		return &GroupConflictError{Name: p.Name, Differs: d}
	}
	return nil
}
