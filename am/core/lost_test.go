package core

import (
	"strings"
	"testing"
	"time"
)

// A worker that stops heartbeating for longer than the worker timeout is
// lost: its running attempts run again elsewhere without counting as
// failures, and the status lists show it gone.
func TestSilentWorkerIsLostAndItsAttemptsRerun(t *testing.T) {
	f := newFake(t, CoreOptions{WorkerTimeout: 30 * time.Second, MaxFailedAttempts: 1})
	id := f.submit(`
name: two
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	if len(f.running) != 2 {
		t.Fatalf("%d running, want 2", len(f.running))
	}
	// w2 keeps reporting; w1 goes silent.
	for i := 0; i < 4; i++ {
		f.now = f.now.Add(10 * time.Second)
		f.c.WorkerHeartbeat(f.now, "w2")
		for a, w := range f.running {
			if w == "w2" {
				f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a, Result: AttemptRunning, Progress: 0.5})
			}
		}
		f.tick(0)
	}
	if !strings.Contains(strings.Join(f.logs, "\n"), "worker w1 lost") {
		t.Fatalf("w1 not lost after 40 s of silence; logs:\n%s", strings.Join(f.logs, "\n"))
	}
	for _, n := range f.c.Nodes() {
		if n.ID == "n1" {
			t.Errorf("node n1 still listed with %d workers", n.Workers)
		}
	}
	// Its attempt waits for a worker; a new one runs it, and with one
	// allowed failure per task the DAG still succeeds: the loss did not count.
	f.addWorker("w3", "g", "n3", 512)
	for i := 0; i < 5 && len(f.ended) == 0; i++ {
		f.finishAll()
	}
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded || st.Failed != 0 {
		t.Fatalf("DAG %s with %d failed attempts, want SUCCEEDED with 0", st.State, st.Failed)
	}
	if all := f.c.DAGs(); len(all) != 1 || all[0].ID != id {
		t.Fatalf("DAGs() = %+v", all)
	}
}

// FailDAG ends a DAG with the reason given, kills its running attempts,
// and is an error for an unknown DAG.
func TestFailDAG(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(`
name: doomed
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 512)
	if err := f.c.FailDAG(f.now, id, "its group cannot be placed"); err != nil {
		t.Fatal(err)
	}
	f.drain()
	st, _ := f.c.DAG(id)
	if st.State != DAGFailed || !strings.Contains(st.Diagnostics, "its group cannot be placed") {
		t.Fatalf("DAG %s %q", st.State, st.Diagnostics)
	}
	if len(f.running) != 0 {
		t.Errorf("%d attempts still running after the DAG failed", len(f.running))
	}
	if err := f.c.FailDAG(f.now, "dag_nope", "x"); err == nil {
		t.Error("FailDAG of an unknown DAG returned nil")
	}
}
