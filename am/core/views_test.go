package core

import (
	"fmt"
	"testing"
	"time"
)

// The journal keeps every attempt of the diamond with the worker and node
// it ran on and how it ended; the DAG view draws the graph in layers.
func TestDAGViewKeepsAttemptsAndLayers(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(diamond)
	f.addWorker("w1", "g", "n1", 1024)
	// Fail one src attempt once: it is retried, so src has 4 attempts.
	var first string
	for a := range f.running {
		first = a
		break
	}
	delete(f.running, first)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: first, Result: AttemptFailed, ExitCode: 3, Diagnostics: "stderr tail: boom"})
	f.drain()
	for i := 0; i < 10 && len(f.running) > 0; i++ {
		f.now = f.now.Add(time.Second)
		f.finishAll()
	}
	v, ok := f.c.DAGView(id)
	if !ok {
		t.Fatal("no view")
	}
	// 3 src + 1 retry + 2 left + 3 right + 1 sink = 10 attempts.
	if len(v.Attempts) != 10 {
		t.Fatalf("%d attempts, want 10", len(v.Attempts))
	}
	states := map[string]int{}
	for _, a := range v.Attempts {
		states[a.State]++
		if a.Worker != "w1" || a.Node != "n1" || a.Start.IsZero() || a.End.IsZero() {
			t.Errorf("attempt %+v lacks its worker, node or times", a)
		}
		if a.ID == first && (a.State != "FAILED" || a.ExitCode != 3 || a.Diagnostics != "stderr tail: boom") {
			t.Errorf("failed attempt recorded as %+v", a)
		}
	}
	if states["SUCCEEDED"] != 9 || states["FAILED"] != 1 {
		t.Errorf("states %v, want 9 SUCCEEDED and 1 FAILED", states)
	}
	// src is layer 0; left and right 1; sink 2 (the longest path).
	depths := ""
	for _, vv := range v.Vertices {
		depths += fmt.Sprintf("%s:%d ", vv.Name, vv.Depth)
	}
	if depths != "src:0 left:1 right:1 sink:2 " {
		t.Errorf("depths %q", depths)
	}
	if len(v.Edges) != 4 || v.Edges[1].Type != "one-to-one" {
		t.Errorf("edges %+v", v.Edges)
	}
}

// Usage is sampled once per interval and forgotten after an hour; a
// killed DAG's running attempts end KILLED with the reason.
func TestUsageHistoryAndKilledAttempts(t *testing.T) {
	// No heartbeats come in this test: keep the timeouts out of the way.
	f := newFake(t, CoreOptions{TaskTimeout: 10 * time.Hour, WorkerTimeout: 10 * time.Hour, IdleTimeout: 10 * time.Hour})
	id := f.submit(diamond)
	f.addWorker("w1", "g", "n1", 1024)
	// 3 src attempts x 256 MB of 1024 MB: 75%.
	for i := 0; i < 800; i++ { // 800 ticks of 5 s = 66 min
		f.tick(usageEvery)
	}
	g := f.c.GroupViews()[0]
	// An hour of points 5 s apart, the first exactly an hour old: 721.
	if len(g.Usage) != 721 {
		t.Errorf("%d usage points, want 721", len(g.Usage))
	}
	if p := g.Usage[len(g.Usage)-1]; p.InstantPercent != 75 || p.Running != 1 || p.Wanted != 1 {
		t.Errorf("last point %+v, want 75%% with 1 worker running and wanted", p)
	}
	if err := f.c.KillDAG(f.now, id, "operator said so"); err != nil {
		t.Fatal(err)
	}
	f.drain()
	for _, a := range f.c.Attempts(id) {
		if want := "killed by the AM: DAG " + id + " KILLED"; a.State != "KILLED" || a.Diagnostics != want {
			t.Errorf("attempt %s %s (%q) after the kill, want KILLED (%q)", a.ID, a.State, a.Diagnostics, want)
		}
	}
}

// The journal observes a lost worker: the attempts it ran end KILLED with
// the loss's reason, and a record of another worker stays RUNNING.
func TestJournalClosesALostWorkersAttempts(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(diamond)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	f.c.WorkerLost(f.now, "w1", "container exited")
	f.drain()
	var lost, kept int
	for _, a := range f.c.Attempts(id) {
		switch {
		case a.Worker == "w1" && a.State == "KILLED" && a.Diagnostics == "stopped without a report: its worker was lost (container exited)":
			lost++
		case a.Worker == "w2" && a.State == "RUNNING":
			kept++
		default:
			t.Errorf("attempt %+v", a)
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("%d attempts of the lost worker closed, %d of the other running; want some of each", lost, kept)
	}
}
