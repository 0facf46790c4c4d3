package am

import (
	"fmt"
	"strings"

	"github.com/ebb-am/ebb/am/core"
)

// DAGPage asks for one page of the DAG list: the newest first, only those
// in State (empty: any), at most Limit (0: all), submitted before the DAG
// Before (empty: from the newest).
type DAGPage struct {
	State  string
	Limit  int
	Before string
}

// BadPageError: a page request the AM cannot answer.
type BadPageError struct{ Field, Value, Allowed string }

func (e *BadPageError) Error() string {
	return fmt.Sprintf("list DAGs: %s %q: %s", e.Field, e.Value, e.Allowed)
}

// page cuts dags (as clients see them, oldest first, as the core lists
// them) to the page p asks for; total counts every DAG that matches the
// state, next is the Before of the following page ("" on the last).
func (p DAGPage) page(dags []core.DAGStatus) (out []core.DAGStatus, total int, next string, err error) {
	var want core.DAGState
	if p.State != "" {
		st, ok := core.ParseDAGState(strings.ToUpper(p.State))
		if !ok {
			return nil, 0, "", &BadPageError{Field: "state", Value: p.State, Allowed: "want one of SUBMITTED, RUNNING, SUCCEEDED, FAILED, KILLED"}
		}
		want = st
	}
	if p.Limit < 0 {
		return nil, 0, "", &BadPageError{Field: "limit", Value: fmt.Sprint(p.Limit), Allowed: "want 0 (all) or more"}
	}
	end := len(dags) // the page starts just before end, going back
	if p.Before != "" {
		end = -1
		for i, d := range dags {
			if d.ID == p.Before {
				end = i
			}
		}
		if end < 0 {
			return nil, 0, "", &BadPageError{Field: "before", Value: p.Before, Allowed: "no such DAG in this AM"}
		}
	}
	for i := len(dags) - 1; i >= 0; i-- {
		d := dags[i]
		if p.State != "" && d.State != want {
			continue
		}
		total++
		if i >= end {
			continue
		}
		if p.Limit > 0 && len(out) == p.Limit {
			next = out[len(out)-1].ID
			continue
		}
		out = append(out, d)
	}
	return out, total, next, nil
}
