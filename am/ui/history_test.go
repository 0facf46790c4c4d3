package ui

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

var updateHistory = flag.Bool("update-history", false, "write testdata/history-vN.json for a new historyVersion")

// histFixture is a view with every field of every type the history keeps
// set to something other than its zero value (checked by allSet), so that
// a field the history types forget shows as a difference.
type histFixture struct {
	dag   core.DAGView
	group core.GroupView
	work  core.WorkerView
	node  core.NodeView
	trans core.Transition
	move  core.WorkerMove
}

func newHistFixture() histFixture {
	t0 := time.Date(2027, 1, 15, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cs := []core.Counter{{Group: "wc", Name: "lines", Value: 12}}
	vs := core.VertexStatus{Name: "map", Total: 4, Succeeded: 2, Running: 1, Counters: cs}
	st := core.DAGStatus{ID: "app_1dag_0001", Name: "wc", State: core.DAGFailed, Diagnostics: "task failed", Group: "g",
		Output: "/out", Submit: at(1), Finish: at(90), Goal: at(120), TotalTasks: 5, Succeeded: 2, Running: 1, Failed: 3,
		Recovered: true, Compacted: true, Vertices: []core.VertexStatus{vs}, SReq: 1.5, Utility: 0.25, Slots: 7,
		Speculation: core.SpeculationCounts{Launched: 3, Won: 2, Lost: 1}, SlowNodes: []string{"n7"}, Counters: cs}
	return histFixture{
		dag: core.DAGView{DAGStatus: st, Edges: []core.EdgeView{{From: "map", To: "reduce", Type: "scatter-gather"}},
			Vertices: []core.VertexView{{VertexStatus: vs, MemoryMB: 512, VCores: 1, Queued: 1, Waiting: 1, Depth: 1}},
			Attempts: []core.AttemptRecord{{ID: "app_1dag_0001_map_000001_0", DAG: "app_1dag_0001", Vertex: "map", Task: 1,
				Number: 2, MemoryMB: 1024, Worker: "w1", Container: "container_1", Node: "n1", Start: at(2), End: at(30),
				State: "FAILED", ExitCode: 137, Diagnostics: "killed", Progress: 0.5, Speculative: true, Loser: true,
				Status: "read 7 lines", Counters: cs}}},
		group: core.GroupView{GroupStatus: core.GroupStatus{Name: "g", State: "SCALE_OUT", UsagePercent: 85.5, Workers: 3,
			PendingWorkers: 2, Nodes: 2, QueuedAttempts: 4, RunningAttempts: 3, RunningMB: 1536, OfferedMB: 3072,
			NeedsWorkers: true, Preempt: core.PreemptCounts{Warned: 5, GivenBack: 4, Lost: 1, Evicted: 2, SlowStartKilled: 3},
			TargetP95: 1.5, MeasuredP95: 2.4, MeasuredDAGs: 50}, Kind: "k", MemoryMB: 1024, SizedByEbb: true, VCores: 2, Autoscaled: true,
			OutThreshold: 80, InThreshold: 50, Wanted: 5, Draining: 1, DrainingNodes: 1,
			Usage: []core.UsagePoint{{At: at(60), UsagePercent: 85.5, InstantPercent: 90, State: "SCALE_OUT", Wanted: 5,
				Running: 3, Draining: 1, Nodes: 2, DrainingNodes: 1, Queued: 4}}},
		work: core.WorkerView{ID: "w1", Group: "g", Kind: "k", Node: "n1", ContainerID: "container_1", MemoryMB: 1024,
			UsedMB: 512, Running: []string{"a1"}, Outputs: map[string]int{"app_1dag_0001": 2}, Draining: true,
			Stopping: true, RecycleTo: "h", LastSeen: at(80)},
		node: core.NodeView{NodeStatus: core.NodeStatus{ID: "n1", CapacityMB: 4096, UsedMB: 512, Workers: 1,
			Draining: true, Idle: true, State: core.NodeDecommissioning, DrainBy: at(120)}, ContainerMB: 1024, Groups: []string{"g"}},
		trans: core.Transition{At: at(40), Group: "g", From: "STABLE", To: "SCALE_OUT", Reason: "usage 85%"},
		move:  core.WorkerMove{At: at(50), Worker: "w1", From: "g", To: "h"},
	}
}

// histFixture is a View: one DAG (not compacted in the detail, as Capture
// keeps only those), one of everything else.
func (f histFixture) Now() time.Time         { return f.dag.Submit.Add(100 * time.Second) }
func (f histFixture) DAGs() []core.DAGStatus { return []core.DAGStatus{f.dag.DAGStatus} }
func (f histFixture) DAGView(id string) (core.DAGView, bool) {
	d := f.dag
	d.Compacted = false
	return d, id == d.ID
}
func (f histFixture) Attempt(string) (core.AttemptRecord, bool) { return core.AttemptRecord{}, false }
func (f histFixture) GroupViews() []core.GroupView              { return []core.GroupView{f.group} }
func (f histFixture) Workers() []core.WorkerView                { return []core.WorkerView{f.work} }
func (f histFixture) NodeViews() []core.NodeView                { return []core.NodeView{f.node} }
func (f histFixture) Transitions() []core.Transition            { return []core.Transition{f.trans} }
func (f histFixture) Moves() []core.WorkerMove                  { return []core.WorkerMove{f.move} }

// The history's format is held by a golden file per version: a change to
// what a Snapshot or a DAGRecord writes fails here until historyVersion
// is bumped and the new version's file written (-update-history, which
// refuses to rewrite an existing version's file).
func TestHistoryFormatNeedsAVersionBump(t *testing.T) {
	f := newHistFixture()
	app := AppInfo{ID: "app_1", Name: "n", User: "alice", Queue: "q", Attempt: 1, World: "yarn",
		Started: f.dag.Submit, Finished: f.dag.Finish}
	snap, err := Capture(app, f).Encode()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := EncodeDAG(f.dag)
	if err != nil {
		t.Fatal(err)
	}
	got := append(append(append(snap, '\n'), rec...), '\n')
	path := filepath.Join("testdata", fmt.Sprintf("history-v%d.json", historyVersion))
	want, err := os.ReadFile(path)
	switch {
	case *updateHistory && errors.Is(err, fs.ErrNotExist):
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	case *updateHistory:
		t.Fatalf("%s exists: a history of version %d is already written in that format; a new format needs a new historyVersion", path, historyVersion)
	case err != nil:
		t.Fatalf("%v: historyVersion %d has no golden file; write it with go test ./am/ui -run TestHistoryFormat -update-history", err, historyVersion)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the history's format changed without a new historyVersion (%d): older files would read wrong.\n got: %s\nwant: %s", historyVersion, got, want)
	}
}

// What the history wrote reads back as the views it was written from:
// every field of every type, none blank.
func TestHistoryReadsBackEveryField(t *testing.T) {
	f := newHistFixture()
	for _, v := range []any{f.dag, f.group, f.work, f.node, f.trans, f.move} {
		if p := zeroField(reflect.ValueOf(v), reflect.TypeOf(v).Name()); p != "" {
			t.Fatalf("the fixture leaves %s zero: set it, so the history must keep it", p)
		}
	}
	b, err := Capture(AppInfo{ID: "app_1"}, f).Encode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	wantDAG, _ := f.DAGView(f.dag.ID)
	gotDAG, ok := s.DAGView(f.dag.ID)
	// A DAGView writes its detailed vertices only: the status's summary
	// list is shadowed (as in version 1), so it reads back empty.
	wantDAG.DAGStatus.Vertices = nil
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"DAGs", s.DAGs(), f.DAGs()}, {"DAG view", gotDAG, wantDAG}, {"groups", s.GroupViews(), f.GroupViews()},
		{"workers", s.Workers(), f.Workers()}, {"nodes", s.NodeViews(), f.NodeViews()},
		{"transitions", s.Transitions(), f.Transitions()}, {"moves", s.Moves(), f.Moves()},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s read back as\n%+v\nwant\n%+v", c.what, c.got, c.want)
		}
	}
	if !ok {
		t.Error("the DAG's detail is missing")
	}
	rec, err := EncodeDAG(f.dag)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeDAG(rec)
	want := f.dag
	want.DAGStatus.Vertices = nil
	if err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("DAG record read back as %+v, %v; want %+v", back, err, want)
	}
	if err := s.Read(context.Background(), func(View) {}); err != nil {
		t.Fatal(err)
	}
}

// zeroField names the first field under v left at its zero value.
func zeroField(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			if v.Interface().(time.Time).IsZero() {
				return path
			}
			return ""
		}
		for i := 0; i < v.NumField(); i++ {
			if p := zeroField(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
		return ""
	case reflect.Slice:
		if v.Len() == 0 {
			return path
		}
		for i := 0; i < v.Len(); i++ {
			if p := zeroField(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		return ""
	}
	if v.IsZero() {
		return path
	}
	return ""
}
