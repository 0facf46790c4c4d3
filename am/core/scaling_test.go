package core

import (
	"fmt"
	"testing"
	"time"
)

// Spark-style dynamic allocation ramps 1, 2, 4, ... per backlog timeout,
// capped by what the queue can use.
func TestSparkDARamp(t *testing.T) {
	f := newFake(t, CoreOptions{Scaling: ScaleSparkDA, BacklogTimeout: time.Second})
	f.submit(`
name: burst
containerGroup: {name: g, workerMemoryMB: 1000}
vertices: [{name: v, command: "true", parallelism: 20, memoryMB: 500}]
`)
	// 20 x 500 MB queued = 10 workers' worth; no backlog timeout yet.
	var totals []int
	for i := 0; i < 6; i++ {
		totals = append(totals, f.wanted["g"])
		f.tick(time.Second)
	}
	// t=0: 0; t=1: +1; t=2: +2 = 3; t=3: +4 = 7; t=4: +8 capped at 10.
	if got := fmt.Sprint(totals); got != "[0 1 3 7 10 10]" {
		t.Fatalf("wanted totals %s, want [0 1 3 7 10 10]", got)
	}
}

// A drained node's workers finish what they run, then stop; a worker
// holding an output a running DAG needs is never stopped.
func TestDrainKeepsNeededOutputs(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(diamond)
	f.addWorker("w1", "g", "n1", 1024)
	f.finishAll() // the three src tasks, on w1; left and right now need them
	f.addWorker("w2", "g", "n2", 1024)
	f.c.DrainNode(f.now, "n1", "test", false)
	f.drain()
	for _, s := range f.stopped {
		if s == "w1" {
			t.Fatal("w1 stopped while it holds src outputs that left/right still need")
		}
	}
	for i := 0; i < 10 && len(f.running) > 0; i++ {
		f.finishAll()
		f.tick(time.Second)
	}
	st, _ := f.c.DAG(id)
	if st.State != DAGSucceeded {
		t.Fatalf("DAG %v: %s", st.State, st.Diagnostics)
	}
	f.tick(time.Second)
	stopped := fmt.Sprint(f.stopped)
	if stopped != "[w1]" {
		t.Fatalf("stopped %s, want [w1] once the DAG ended", stopped)
	}
	// Its container gone, the node is forgotten with its drain
	// (checkCounts: no node counted as draining any more).
	f.c.WorkerLost(f.now, "w1", "stopped")
	f.drain()
	if _, ok := f.c.nodes["n1"]; ok || f.c.ndraining != 0 {
		t.Fatalf("after w1 left: node n1 kept %v, %d nodes draining", ok, f.c.ndraining)
	}
}
