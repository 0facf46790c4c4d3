package scheduler

import (
	"fmt"
	"maps"
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

// MergeGroup adds p to existing (a non-nil map by group name). A new name
// is added (merged=false). The same name with identical properties is the
// same group, now shared (merged=true, existing unchanged).
//
// The same name with different properties is rejected with a
// *GroupConflictError rather than made a second, distinct group: a DAG
// that names a group expects the workers that name stands for, and
// quietly giving it a group of the same name with another DAG's worker
// sizes or environment would make one DAG run with the other's settings
// (or make the name ambiguous on the status page and in logs). The client
// sees the conflict at submission and can pick another name.
func MergeGroup(existing map[string]GroupProps, p GroupProps) (merged bool, err error) {
	q, ok := existing[p.Name]
	if !ok {
		// Keep our own copy of Env: the caller's map may change later.
		p.Env = maps.Clone(p.Env)
		existing[p.Name] = p
		return false, nil
	}
	if d := q.Diff(p); len(d) > 0 {
		return false, &GroupConflictError{Name: p.Name, Differs: d}
	}
	return true, nil
}
