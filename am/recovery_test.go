package am

import (
	"context"
	"fmt"
	"github.com/ebb-am/ebb/am/amconf"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/recovery"
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
	dags, warns := RecoveredDAGs(recs, "")
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

// TestTornLogRecoversEveryEarlierDAGAndTask is the case end to
// end, without HDFS: an AM wrote two DAGs and their tasks to the log and
// died inside its last record. The next attempt reads every record before
// the cut, and a new Core lists both DAGs with the tasks that succeeded.
func TestTornLogRecoversEveryEarlierDAGAndTask(t *testing.T) {
	dir := t.TempDir()
	d, all, _, _, err := recovery.Open(recovery.LocalFS{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	r := recovery.NewRecorder(d, all, time.Millisecond, nil)
	recs := []recoverylog.Record{
		{DAGAccepted: &recoverylog.DAGAccepted{DAG: "dag_0001", SpecName: "wc.yaml", Spec: []byte(recSpec), SubmitUnixMs: 1000}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "map", Task: 0, Attempt: "dag_0001_map_000000_0", Worker: "w1"}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "map", Task: 1, Attempt: "dag_0001_map_000001_0", Worker: "w1"}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "reduce", Task: 0, Attempt: "dag_0001_reduce_000000_0"}},
		{DAGEnded: &recoverylog.DAGEnded{DAG: "dag_0001", State: "SUCCEEDED", FinishUnixMs: 2000}},
		{DAGAccepted: &recoverylog.DAGAccepted{DAG: "dag_0002", SpecName: "wc.yaml", Spec: []byte(recSpec), SubmitUnixMs: 3000}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0002", Vertex: "map", Task: 1, Attempt: "dag_0002_map_000001_0", Worker: "w2"}},
	}
	for _, rec := range recs {
		ticket, err := r.Add(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Sync(context.Background(), ticket); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// The dying AM's last write: a task record cut in half.
	half, _ := recoverylog.Append(nil, recoverylog.Record{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0002", Vertex: "map", Task: 0, Attempt: "dag_0002_map_000000_0", Worker: "w2"}})
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%010d.seg", len(recs))), half[:len(half)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, got, torn, err := recovery.Open(recovery.LocalFS{}, dir)
	if err != nil || torn == nil {
		t.Fatalf("Open: %v, torn %v; want the cut reported", err, torn)
	}
	dags, warns := RecoveredDAGs(got, "")
	if len(warns) != 0 {
		t.Fatalf("warnings %v", warns)
	}
	c, err := core.NewCore(amconf.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Recover(time.Unix(5000, 0), dags, core.RecoverOptions{Window: time.Minute}); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, s := range c.DAGs() {
		states = append(states, fmt.Sprintf("%s %s %d/%d recovered=%v", s.ID, s.State, s.Succeeded, s.TotalTasks, s.Recovered))
	}
	want := []string{"dag_0001 SUCCEEDED 3/3 recovered=true", "dag_0002 SUBMITTED 1/3 recovered=true"}
	if !reflect.DeepEqual(states, want) {
		t.Fatalf("after recovery: %v\nwant %v", states, want)
	}
}

// TestRecoveredEndedDAGsShowAsTheyEnded: a DAG the log saw end is shown
// to clients in its final state (not as "committing its output", which
// is what an ended DAG whose settlement the AM has not seen looks like).
func TestRecoveredEndedDAGsShowAsTheyEnded(t *testing.T) {
	d, all, _, _, err := recovery.Open(recovery.LocalFS{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := recovery.NewRecorder(d, all, time.Millisecond, nil)
	defer func() { _ = r.Close() }()
	a, err := New(Options{Secret: "s", Listen: "127.0.0.1:0", Recovery: &Recovery{Recorder: r}, Core: amconf.Defaults()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.lis.Close() }()
	recs := []recoverylog.Record{
		{DAGAccepted: &recoverylog.DAGAccepted{DAG: "dag_0001", SpecName: "wc.yaml", Spec: []byte(recSpec), Output: "/out", StagingID: "x", SubmitUnixMs: 1000}},
		{DAGEnded: &recoverylog.DAGEnded{DAG: "dag_0001", State: "SUCCEEDED", FinishUnixMs: 2000}},
	}
	if err := a.Recover(recs, core.RecoverOptions{}); err != nil {
		t.Fatal(err)
	}
	s, ok := a.loop.core.DAG("dag_0001")
	if v := a.view(s); !ok || v.State != core.DAGSucceeded || !v.Recovered {
		t.Fatalf("clients see %s (recovered %v), want SUCCEEDED", v.State, v.Recovered)
	}
	if _, claimed := a.outputUser("/out"); claimed {
		t.Error("the output of an ended DAG is still claimed")
	}
}
