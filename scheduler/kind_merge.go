package scheduler

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// GroupConflictError is a group named again with other properties while
// the group is in use.
type GroupConflictError struct {
	Name    string
	Differs []string // property names, as GroupProps.Diff gives them
	// Have is the group in use, Want what the new DAG asks for.
	Have, Want GroupProps
	// Owners are the DAGs using the group (filled in by the AM core).
	Owners []string
}

func (e *GroupConflictError) Error() string {
	by := ""
	if len(e.Owners) > 0 {
		by = " by " + strings.Join(e.Owners, ", ")
	}
	return fmt.Sprintf("containerGroup %q is in use%s with %s; this DAG asks for %s (%s differ): "+
		"name another group, use the same properties, or wait for (or kill) the DAGs using it: the group is released once none is left",
		e.Name, by, e.Have.describe(), e.Want.describe(), strings.Join(e.Differs, ", "))
}

// describe prints the properties as a DAG spec names them.
func (p GroupProps) describe() string {
	s := fmt.Sprintf("workerMemoryMB=%d, workerVCores=%d", p.WorkerMemoryMB, p.WorkerVCores)
	if p.SizedByEbb {
		s = fmt.Sprintf("workerMemoryMB left to ebb (%d MB for tasks of up to %d MB), workerVCores=%d", p.WorkerMemoryMB, p.TaskMB, p.WorkerVCores)
	}
	if p.MaxWorkers > 0 {
		s += fmt.Sprintf(", maxWorkers=%d", p.MaxWorkers)
	}
	if len(p.Env) > 0 {
		keys := make([]string, 0, len(p.Env))
		for k := range p.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s += ", env " + strings.Join(keys, ",") // names only: values may be secret
	}
	return s
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
//
// A DAG that leaves the worker size to ebb (p.SizedByEbb) asks only that
// a worker hold its largest task: it shares a group whose workers do,
// whatever size they were given, so DAGs of different shapes in one
// session share the group the first of them sized.
func MergeGroup(have, p GroupProps) error {
	d := have.Diff(p)
	if p.SizedByEbb && p.TaskMB <= have.WorkerMemoryMB {
		d = slices.DeleteFunc(d, func(s string) bool { return s == "workerMemoryMB" })
	}
	if len(d) > 0 {
		return &GroupConflictError{Name: p.Name, Differs: d, Have: have, Want: p}
	}
	return nil
}
