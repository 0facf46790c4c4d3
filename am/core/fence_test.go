package core

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Issue 33, a worker cut off: w1 is stopped with its sink attempt running
// past the worker timeout (30 s). The Core loses it and gives the task a
// new attempt on w2. Then w1 wakes: its heartbeat, its late success (the
// output it offers), its ask to commit and its registration under the
// same id are each refused and counted as fenced, and none of them moves
// the task: the DAG succeeds on w2's attempt alone, with no failure.
func TestLostWorkerIsFenced(t *testing.T) {
	f := newFake(t, CoreOptions{WorkerTimeout: 30 * time.Second, MaxFailedAttempts: 1})
	id := f.submit(`
name: one
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512, speculative: true}]
`)
	f.addWorker("w1", "g", "n1", 512)
	var old string
	for a := range f.running {
		old = a
	}
	f.addWorker("w2", "g", "n2", 512)
	// w2 heartbeats every 10 s; w1 says nothing for 40 s.
	for range 4 {
		f.now = f.now.Add(10 * time.Second)
		f.c.Apply(f.now, WorkerBeat{Worker: "w2"})
		f.tick(0)
	}
	var fresh string
	for a, w := range f.running {
		if w == "w2" {
			fresh = a
		}
	}
	if fresh == "" || fresh == old {
		t.Fatalf("after w1's loss w2 runs %q (w1 ran %s): want a new attempt of the task; logs:\n%s", fresh, old, strings.Join(f.logs, "\n"))
	}
	// w1 wakes: each thing it says is refused.
	f.c.Apply(f.now, WorkerBeat{Worker: "w1", Running: []string{old}})
	f.c.Apply(f.now, AttemptUpdated{Worker: "w1", Update: AttemptUpdate{AttemptID: old, Result: AttemptCommitPending}})
	f.c.Apply(f.now, AttemptUpdated{Worker: "w1", Update: AttemptUpdate{AttemptID: fresh, Result: AttemptSucceeded}})
	r := f.c.Apply(f.now, WorkerRegistered{Info: WorkerInfo{ID: "w1", Group: "g", Node: "n1", MemoryMB: 512, Reconnected: true,
		Attempts: []AdoptedAttempt{{ID: old, DAG: id, Vertex: "v", Task: 0}}}})
	f.drain()
	var fe *FencedError
	if !errors.As(r.Err, &fe) || fe.Worker != "w1" {
		t.Fatalf("w1 registering again: %v, want a FencedError", r.Err)
	}
	if n := f.c.Fenced(); n != 4 {
		t.Errorf("%d refusals counted, want 4 (a heartbeat, an ask to commit, a success, a registration)", n)
	}
	if len(f.granted) != 0 {
		t.Errorf("commits granted to %v, want none before w2 asks", f.granted)
	}
	if st, _ := f.c.DAG(id); st.State == DAGSucceeded {
		t.Fatalf("the DAG succeeded on w1's late report of another worker's attempt")
	}
	// w2's attempt asks, is granted, and succeeds: the task's one result.
	f.c.Apply(f.now, AttemptUpdated{Worker: "w2", Update: AttemptUpdate{AttemptID: fresh, Result: AttemptCommitPending}})
	f.drain()
	if len(f.granted) != 1 || f.granted[0] != fresh {
		t.Fatalf("granted %v, want [%s]", f.granted, fresh)
	}
	f.c.Apply(f.now, AttemptUpdated{Worker: "w2", Update: AttemptUpdate{AttemptID: fresh, Result: AttemptSucceeded}})
	f.drain()
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded || st.Failed != 0 {
		t.Fatalf("DAG %s with %d failed attempts, want SUCCEEDED with 0", st.State, st.Failed)
	}
	t.Logf("w1 lost after 40 s of silence; %s re-ran as %s on w2; %d reports from w1 fenced", old, fresh, f.c.Fenced())
}
