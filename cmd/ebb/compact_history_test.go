package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// With ebb.am.dag.retained.count=1 a session's first DAG is compacted in
// the core once the second ends: status and list still answer for it as a
// summary, and its UI page (api/v1/dags/ID) is built from its record in
// the history, with its vertex and attempt.
func TestCompactedDAGServedFromHistory(t *testing.T) {
	ta := startTestAM(t, 2*time.Minute, "ebb.am.dag.retained.count=1")
	spec := `
name: tiny%d
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: only, command: [true], parallelism: 1, memoryMB: 256}]
`
	var ids []string
	for i := range 2 {
		id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: fmt.Appendf(nil, spec, i), SpecName: "tiny.yaml", Output: filepath.Join(ta.root, "out", fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := ta.WaitDAG(ta.ctx, id); err != nil || st.State != core.DAGSucceeded {
			t.Fatalf("DAG %s: %+v %v", id, st, err)
		}
		ids = append(ids, id)
	}
	st, ok, err := ta.Status(ta.ctx, ids[0])
	if err != nil || !ok || !st.Compacted || st.State != core.DAGSucceeded || st.TotalTasks != 1 || st.Succeeded != 1 || st.Name != "tiny0" {
		t.Fatalf("status of the compacted DAG: %+v %v %v", st, ok, err)
	}
	if st, err := ta.WaitDAG(ta.ctx, ids[0]); err != nil || st.State != core.DAGSucceeded {
		t.Fatalf("waiting for the compacted DAG: %+v %v", st, err)
	}
	base := "http://" + ta.StatusAddr() + "/api/v1/"
	var list []ui.DAG
	getJSON(t, base+"dags", &list)
	if len(list) != 2 || list[0].ID != ids[0] || list[0].State != "SUCCEEDED" || list[0].Tasks != 1 {
		t.Fatalf("api/v1/dags: %+v", list)
	}
	// The record is written off the loop once the DAG settled: poll.
	var d ui.DAGDetail
	waitUntil(t, fmt.Sprintf("api/v1/dags/%s to show the DAG's vertex and attempt from the history", ids[0]), 30*time.Second, 20*time.Millisecond, func() bool {
		d = ui.DAGDetail{}
		getJSON(t, base+"dags/"+ids[0], &d)
		return len(d.Vertices) == 1 && len(d.Attempts) == 1
	})
	if d.Vertices[0].Name != "only" || d.Attempts[0].State != "SUCCEEDED" || d.State != "SUCCEEDED" {
		t.Fatalf("the compacted DAG's page: %+v", d)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	if err := getJSONCtx(context.Background(), http.DefaultClient, url, v); err != nil {
		t.Fatal(err)
	}
}
