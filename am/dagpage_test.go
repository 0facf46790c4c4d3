package am

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/core"
)

func TestDAGPages(t *testing.T) {
	// dag_0001 .. dag_0007, oldest first as the core lists them; the even
	// ones failed.
	var all []core.DAGStatus
	for i := 1; i <= 7; i++ {
		st := core.DAGSucceeded
		if i%2 == 0 {
			st = core.DAGFailed
		}
		all = append(all, core.DAGStatus{ID: fmt.Sprintf("dag_%04d", i), State: st})
	}
	ids := func(ds []core.DAGStatus) string {
		var s []string
		for _, d := range ds {
			s = append(s, strings.TrimPrefix(d.ID, "dag_000"))
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		p          DAGPage
		want, next string
		total      int
	}{
		{DAGPage{}, "7,6,5,4,3,2,1", "", 7},
		{DAGPage{Limit: 3}, "7,6,5", "dag_0005", 7},
		{DAGPage{Limit: 3, Before: "dag_0005"}, "4,3,2", "dag_0002", 7},
		{DAGPage{Limit: 3, Before: "dag_0002"}, "1", "", 7},
		{DAGPage{Limit: 3, Before: "dag_0001"}, "", "", 7},
		// Failed ones only: 6, 4, 2 — a page of two, then the last.
		{DAGPage{State: "FAILED", Limit: 2}, "6,4", "dag_0004", 3},
		{DAGPage{State: "failed", Limit: 2, Before: "dag_0004"}, "2", "", 3},
		{DAGPage{State: "RUNNING"}, "", "", 0},
	} {
		got, total, next, err := c.p.page(all)
		if err != nil || ids(got) != c.want || next != c.next || total != c.total {
			t.Errorf("%+v: %q next %q total %d (%v); want %q next %q total %d", c.p, ids(got), next, total, err, c.want, c.next, c.total)
		}
	}
	for _, p := range []DAGPage{{State: "DONE"}, {Limit: -1}, {Before: "dag_0099"}} {
		var be *BadPageError
		if _, _, _, err := p.page(all); !errors.As(err, &be) {
			t.Errorf("%+v: %v, want a *BadPageError", p, err)
		}
	}
}
