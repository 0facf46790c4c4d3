package eventlog

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

var t0 = time.Date(2024, 5, 1, 10, 0, 0, 250_000_000, time.UTC)

// Every event kind survives its line: what a replay feeds the core is
// what the live core got.
func TestEveryEventRoundTrips(t *testing.T) {
	spec := &dag.Spec{Name: "d", Group: dag.GroupSpec{Name: "g"}, Vertices: []dag.VertexSpec{{Name: "v", Command: dag.Command{"true"},
		Parallelism: 2, MemoryMB: 128, SimDurations: []dag.Duration{dag.Duration(time.Second)}}},
		Goal: &dag.Goal{Within: dag.Duration(time.Minute)}}
	sub := core.Submission{Spec: spec, Splits: map[string][][]core.Split{"v": {{{Path: "/a", Offset: 1, Length: 2}}}}, Output: "/o", Staging: "/o/_t", Client: "c"}
	evs := []core.Event{
		core.Tick{},
		core.WorkerRegistered{Info: core.WorkerInfo{ID: "w", Group: "g", Node: "n", NodeMB: 4096, MemoryMB: 1024, VCores: 1,
			Reconnected: true, Outputs: []string{"a"}, Attempts: []core.AdoptedAttempt{{ID: "a", DAG: "d", Vertex: "v", Task: 1}}}},
		core.WorkerBeat{Worker: "w", Running: []string{"a", "b"}},
		core.AttemptUpdated{Worker: "w", Update: core.AttemptUpdate{AttemptID: "a", Result: core.AttemptKilled, Progress: 0.5, MemoryUsedMB: 3}},
		core.WorkerGone{Worker: "w", Reason: "r", Exited: true, Preempted: true},
		core.NodesReported{Nodes: []core.ClusterNode{{ID: "n", CapacityMB: 8192}}},
		core.GroupRefused{Group: "g", Reason: "r"},
		core.NodesBilled{PaidUntil: map[string]time.Time{"n": t0}},
		core.NodeChanged{Node: core.ClusterNode{ID: "n", CapacityMB: 8192}, State: core.NodeDecommissioning, DrainTimeout: time.Minute},
		core.DAGArrived{Submission: sub},
		core.DAGKillRequested{ID: "d", Reason: "r"},
		core.DAGOutputSettled{ID: "d", State: core.DAGFailed, Diagnostics: "x"},
		core.AutoscaleSet{Group: "g", OutPercent: 80, InPercent: 50, MinHosts: 1},
		core.AutoscaleTargetSet{Group: "g", P95Slowdown: 1.5},
		core.AllocationSet{Limits: core.AllocationLimits{MinMB: 256, MaxMB: 8192}},
		core.DAGsRecovered{DAGs: []core.RecoveredDAG{{ID: "d", Submission: sub, Submit: t0, Ended: true, State: core.DAGSucceeded, Finish: t0}},
			Options: core.RecoverOptions{Window: time.Minute, Expect: []string{"w"}}},
		core.PreemptionWarned{Strict: []string{"w"}, Negotiable: []string{"x"}, NegotiableMB: 1024},
		core.HeadroomReported{MemoryMB: 2048},
	}
	if len(evs) != len(events) {
		t.Fatalf("the test covers %d event kinds, the decoder %d", len(evs), len(events))
	}
	for i, ev := range evs {
		b, err := line('E', t0, ev)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(i+1, strings.TrimSuffix(string(b), "\n"))
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		if !r.At.Equal(t0) || !reflect.DeepEqual(r.Event, ev) {
			t.Errorf("%T came back as %#v at %s", ev, r.Event, r.At)
		}
	}
}

// A log stops at its cap with a line that says so, and what it holds
// before is whole.
func TestWriterCapsTheLog(t *testing.T) {
	var out closeBuffer
	w, err := NewWriter(&out, Header{IDPrefix: "p"}, 300)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		w.Event(t0, core.WorkerBeat{Worker: "w"})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "# capped at 300 bytes") {
		t.Errorf("the last line is %q, want the cap's", last)
	}
	// The header's 43 bytes and 3 events of 67 bytes make 244; a fourth
	// would make 311, past the cap.
	if n := strings.Count(out.String(), "\nE "); n != 3 {
		t.Errorf("%d events before the cap, want 3:\n%s", n, out.String())
	}
	if !out.closed {
		t.Error("Close did not close the file")
	}
}

// A replay drains where the log says, and prints the actions as the
// live loop recorded them.
func TestReplayPrintsTheCoresActions(t *testing.T) {
	log := "H {\"version\":1,\"idPrefix\":\"t_\",\"conf\":{}}\n" +
		"E 2024-05-01T10:00:00.25Z DAGArrived {\"Submission\":{\"Spec\":{\"name\":\"d\",\"containerGroup\":{\"name\":\"g\",\"workerMemoryMB\":512}," +
		"\"vertices\":[{\"name\":\"v\",\"command\":[\"true\"],\"parallelism\":1,\"memoryMB\":128}]}}}\n" +
		"D 2024-05-01T10:00:00.25Z\n"
	var out bytes.Buffer
	err := Replay(strings.NewReader(log), func(h Header) (*core.Core, error) {
		o := amconf.Defaults()
		o.IDPrefix = h.IDPrefix
		return core.NewCore(o)
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	// A DAG arrives: the core logs it and asks for a worker of its group.
	want := "A 2024-05-01T10:00:00.25Z Log {\"Warn\":false,\"Msg\":\"DAG t_dag_0001 (d) submitted: 1 vertices, 1 tasks, group g\"}\n" +
		"A 2024-05-01T10:00:00.25Z WantWorkers {\"Group\":{\"Name\":\"g\",\"MemoryMB\":512,\"VCores\":1,\"Env\":null},\"Total\":1,\"Prefer\":null,\"Avoid\":null,\"Draining\":null}\n"
	if out.String() != want {
		t.Errorf("replay printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestReplayRefusesBadLogs(t *testing.T) {
	newCore := func(Header) (*core.Core, error) { return core.NewCore(amconf.Defaults()) }
	for name, tc := range map[string]struct{ log, want string }{
		"no header":     {"D 2024-05-01T10:00:00Z\n", "does not begin with a header"},
		"other version": {"H {\"version\":9}\n", "version 9"},
		"unknown event": {"H {\"version\":1}\nE 2024-05-01T10:00:00Z Nope {}\n", `line 2: unknown event "Nope"`},
		"bad time":      {"H {\"version\":1}\nD yesterday\n", "line 2: bad time"},
	} {
		err := Replay(strings.NewReader(tc.log), newCore, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	var fe *FormatError
	if err := Replay(strings.NewReader("H {\"version\":1}\nX\n"), newCore, &bytes.Buffer{}); !errors.As(err, &fe) || fe.Line != 2 {
		t.Errorf("a bad line: %v, want a *FormatError for line 2", err)
	}
}

type closeBuffer struct {
	bytes.Buffer
	closed bool
}

func (b *closeBuffer) Close() error { b.closed = true; return nil }
