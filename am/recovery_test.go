package am

import (
	"reflect"
	"testing"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/recoverylog"
)

const recSpec = `
name: wc
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: map, command: "true", parallelism: 2, memoryMB: 128, inputs: [in.txt]}
  - {name: reduce, command: "true", parallelism: 1, memoryMB: 128}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`

// TestRecoveredDAGsFromRecords: the log's records become the Core's
// recovered DAGs in the order accepted, with inputs resolved as at
// submission, the recorded splits (no listing again), tasks and ends;
// records about DAGs the log never accepted are reported, not fatal.
func TestRecoveredDAGsFromRecords(t *testing.T) {
	recs := []recoverylog.Record{
		{DAGAccepted: &recoverylog.DAGAccepted{DAG: "dag_0001", SpecName: "wc.yaml", Spec: []byte(recSpec), BaseDir: "/home/u",
			Output: "/home/u/out", SubmitUnixMs: 1000,
			Splits: map[string][][]recoverylog.Split{"map": {{{Path: "/home/u/in.txt", Length: 5}}, {{Path: "/home/u/in.txt", Offset: 5, Length: 5}}}}}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "map", Task: 1, Attempt: "dag_0001_map_000001_0", Worker: "w1"}},
		{DAGAccepted: &recoverylog.DAGAccepted{DAG: "dag_0002", SpecName: "wc.yaml", Spec: []byte(recSpec), SubmitUnixMs: 2000}},
		{DAGEnded: &recoverylog.DAGEnded{DAG: "dag_0002", State: "KILLED", Diagnostics: "killed by client", FinishUnixMs: 3000}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0009", Vertex: "map", Task: 0, Attempt: "x"}},
	}
	dags, warns := RecoveredDAGs(recs)
	if len(dags) != 2 || dags[0].ID != "dag_0001" || dags[1].ID != "dag_0002" {
		t.Fatalf("dags %+v", dags)
	}
	d := dags[0]
	if got := d.Submission.Spec.Vertices[0].Inputs; !reflect.DeepEqual(got, []string{"/home/u/in.txt"}) {
		t.Errorf("inputs %v, want resolved against the base dir", got)
	}
	if len(d.Submission.Splits["map"]) != 2 || d.Submission.Splits["map"][1][0] != (core.Split{Path: "/home/u/in.txt", Offset: 5, Length: 5}) {
		t.Errorf("splits %+v", d.Submission.Splits)
	}
	if !reflect.DeepEqual(d.Succeeded, []core.RecoveredTask{{Vertex: "map", Task: 1, Attempt: "dag_0001_map_000001_0", Worker: "w1"}}) || d.Ended {
		t.Errorf("dag_0001: %+v", d)
	}
	if e := dags[1]; !e.Ended || e.State != core.DAGKilled || e.Diagnostics != "killed by client" {
		t.Errorf("dag_0002: %+v", e)
	}
	if len(warns) != 1 {
		t.Errorf("warnings %v, want one about dag_0009", warns)
	}
}
