package core

import (
	"slices"
	"testing"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// change applies a node's reported state as the world sends it.
func (f *fakeWorld) change(node string, s NodeState) {
	f.c.Apply(f.now, NodeChanged{Node: ClusterNode{ID: node}, State: s, DrainTimeout: 2 * time.Minute})
	f.drain()
}

// workersRunning lists the workers that run an attempt now, by attempt.
func (f *fakeWorld) workersRunning() []string {
	var out []string
	for _, id := range sortedKeys(f.running) {
		out = append(out, f.running[id])
	}
	return out
}

const srcSink = `
name: ss
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: src, command: "true", parallelism: 1, memoryMB: 512}
  - {name: sink, command: "true", parallelism: 1, memoryMB: 512}
edges: [{from: src, to: sink, type: scatter-gather}]
`

// A DECOMMISSIONING node's worker finishes what it runs, takes no new
// attempt, and stays while it holds the only copy of an output a running
// DAG needs; it is released once that DAG no longer needs it.
//
// w1 (n1, 512 MB) runs src; n1 starts decommissioning; src succeeds: w1
// holds src's output, which sink needs. sink must wait for w2 (n2), not
// run on w1; w1 must not stop before sink has read its input.
func TestDecommissioningWorkerKeepsNeededOutputThenGoes(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(srcSink)
	f.addWorker("w1", "g", "n1", 512)
	if got := f.workersRunning(); !slices.Equal(got, []string{"w1"}) {
		t.Fatalf("src runs on %v, want w1", got)
	}
	f.change("n1", NodeDecommissioning)
	if !slices.Contains(f.avoid, "n1") {
		t.Errorf("avoid %v: new workers may still go to decommissioning n1", f.avoid)
	}
	// The world must no longer count w1: the core counts it out.
	if !slices.Equal(f.drains, []string{"n1"}) {
		t.Errorf("draining %v, want n1", f.drains)
	}
	f.finishAll()                  // src succeeds on w1
	f.tick(250 * time.Millisecond) // the loop's tick, where drained workers stop
	if len(f.running) != 0 {
		t.Fatalf("sink started on %v, on the decommissioning node", f.workersRunning())
	}
	if slices.Contains(f.stopped, "w1") {
		t.Fatal("w1 stopped while it holds src's output, which sink still needs")
	}
	f.addWorker("w2", "g", "n2", 512)
	if got := f.workersRunning(); !slices.Equal(got, []string{"w2"}) {
		t.Fatalf("sink runs on %v, want w2", got)
	}
	f.tick(250 * time.Millisecond)
	if slices.Contains(f.stopped, "w1") {
		t.Fatal("w1 stopped while sink, reading its output, runs")
	}
	f.finishAll() // sink
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded {
		t.Fatalf("DAG %v", st.State)
	}
	f.tick(250 * time.Millisecond) // the loop's tick: drained workers stop there
	if !slices.Contains(f.stopped, "w1") {
		t.Errorf("w1 not released after the DAG stopped needing it (stopped %v)", f.stopped)
	}
}

// An idle worker with no needed output on a node that starts
// decommissioning is released at once, not at the idle timeout.
func TestDecommissioningIdleWorkerReleasedAtOnce(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(srcSink)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512) // idle: src runs on w1
	f.change("n2", NodeDecommissioning)
	if !slices.Equal(f.stopped, []string{"w2"}) {
		t.Fatalf("stopped %v, want [w2] (idle on the decommissioning node)", f.stopped)
	}
	if ns := f.c.Nodes(); len(ns) != 2 || ns[1].State != NodeDecommissioning || ns[1].DrainBy != f.now.Add(2*time.Minute) {
		t.Errorf("nodes %+v: n2 not shown DECOMMISSIONING with its timeout", ns)
	}
}

// A node reported RUNNING again (recommissioned, healthy again) takes
// attempts and new workers again.
//
// w1 (n1, 1024 MB) runs two of four 512 MB attempts; n1 turns UNHEALTHY:
// when one ends, w1 takes no queued one (it keeps the other running, so
// it is not stopped); n1 is RUNNING again: w1 takes a queued one at once.
func TestNodeRunningAgainIsUsedAgain(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(`
name: many
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 1024)
	f.change("n1", NodeUnhealthy)
	first := sortedKeys(f.running)[0]
	delete(f.running, first)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: first, Result: AttemptSucceeded})
	f.drain()
	if n := len(f.running); n != 1 {
		t.Fatalf("%d attempts run on w1 of the unhealthy node, want the 1 left", n)
	}
	f.change("n1", NodeRunning)
	if n := len(f.running); n != 2 {
		t.Fatalf("%d attempts run on w1 after n1 is RUNNING again, want 2", n)
	}
	if slices.Contains(f.avoid, "n1") {
		t.Errorf("avoid %v: n1 is RUNNING again", f.avoid)
	}
	if ns := f.c.Nodes(); len(ns) != 1 || ns[0].State != NodeRunning || ns[0].Draining {
		t.Errorf("nodes %+v, want n1 RUNNING, not draining", ns)
	}
}

// Packing names no node the cluster reports not RUNNING for a group's new
// workers, and names it again once it is RUNNING.
func TestPackingSkipsNodesNotRunning(t *testing.T) {
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100, MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, CoreOptions{Allocator: alloc})
	f.c.SetClusterNodes(f.now, []ClusterNode{{ID: "nm1:1", CapacityMB: 4096}, {ID: "nm2:1", CapacityMB: 4096}})
	f.change("nm1:1", NodeLost)
	f.submit(`
name: three
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 3, memoryMB: 1024}]
`)
	if !slices.Equal(f.prefer, []string{"nm2:1", "nm2:1", "nm2:1"}) || !slices.Equal(f.avoid, []string{"nm1:1"}) {
		t.Fatalf("prefer %q avoid %q, want nm2:1 three times and nm1:1 avoided", f.prefer, f.avoid)
	}
	f.c.Apply(f.now, NodeChanged{Node: ClusterNode{ID: "nm1:1", CapacityMB: 4096}, State: NodeRunning})
	f.drain()
	if len(f.avoid) != 0 || !slices.Contains(f.c.preferNodes(f.c.groups["g"], 8), "nm1:1") {
		t.Errorf("avoid %q prefer %q: nm1:1 is RUNNING again and has room", f.avoid, f.c.preferNodes(f.c.groups["g"], 8))
	}
}

// A worker that registers on a node the cluster already reports
// decommissioning (its container was allocated before the report reached
// the AM) takes no attempt and is released at once.
func TestWorkerOnDecommissioningNodeIsReleasedAtRegistration(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(srcSink)
	f.change("n1", NodeDecommissioning)
	f.addWorker("w1", "g", "n1", 512)
	if len(f.running) != 0 || !slices.Equal(f.stopped, []string{"w1"}) {
		t.Fatalf("running on %v, stopped %v: want nothing on w1 and w1 stopped", f.workersRunning(), f.stopped)
	}
}

// EachNodeID names the nodes Nodes reports, those the cluster reports
// without a worker of ours among them (the sim bills by it).
func TestEachNodeIDMatchesNodes(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(srcSink)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	f.change("n3", NodeUnhealthy) // no worker of ours
	var want, got []string
	for _, n := range f.c.Nodes() {
		want = append(want, n.ID)
	}
	f.c.EachNodeID(func(id string) { got = append(got, id) })
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) != 3 {
		t.Errorf("EachNodeID %v, Nodes %v: want the same three", got, want)
	}
}
