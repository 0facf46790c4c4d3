package core

import (
	"fmt"
	"testing"

	"github.com/ebb-am/ebb/dag"
)

// attemptID builds ids with strconv for speed; they must stay the
// "%s_%s_%06d_%d" ids that recovery parses back (attemptNumber) and that
// every world and the journal already know.
func TestAttemptIDMatchesFormat(t *testing.T) {
	v := &vertexRun{dag: &dagRun{id: "dag_7"}, spec: &dag.VertexSpec{Name: "map"}}
	for _, index := range []int{0, 1, 9, 10, 99999, 100000, 123456, 999999, 1000000, 12345678} {
		for _, n := range []int{0, 1, 10} {
			tk := &taskRun{vertex: v, index: index}
			want := fmt.Sprintf("%s_%s_%06d_%d", "dag_7", "map", index, n)
			if got := attemptID(tk, n); got != want {
				t.Errorf("attemptID(task %d, %d) = %q, want %q", index, n, got, want)
			}
			if got := attemptNumber(attemptID(tk, n)); got != n {
				t.Errorf("attemptNumber(%q) = %d, want %d", attemptID(tk, n), got, n)
			}
		}
	}
}

// A queued task holds no attempt record: the record (and its entry in the
// id map) is created when the task is placed, under the number counted
// when it was queued, so ids run _0, _1, ... per task as before.
func TestQueuedTaskHasNoAttemptUntilPlaced(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(`
name: q
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 3, memoryMB: 512}]
`)
	if len(f.c.attempt) != 0 {
		t.Fatalf("%d attempt records with nothing placed, want 0", len(f.c.attempt))
	}
	for _, tk := range f.c.dags[id].byName["v"].tasks {
		if tk.state != taskQueued || tk.current != nil {
			t.Fatalf("task %d: %v with attempt %v, want queued with none", tk.index, tk.state, tk.current)
		}
	}
	f.addWorker("w1", "g", "n1", 512)
	first := id + "_v_000000_0"
	if _, ok := f.running[first]; !ok || len(f.running) != 1 || len(f.c.attempt) != 1 {
		t.Fatalf("running %v (%d records), want only %s", f.running, len(f.c.attempt), first)
	}
	delete(f.running, first)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: first, Result: AttemptFailed, ExitCode: 1})
	f.drain()
	// Task 0 is queued again, first in the queue's order: its second attempt.
	if _, ok := f.running[id+"_v_000000_1"]; !ok || len(f.running) != 1 || len(f.c.attempt) != 1 {
		t.Fatalf("running %v (%d records), want only %s_v_000000_1", f.running, len(f.c.attempt), id)
	}
}

// The journal names an attempt's worker as the worker stood when the
// attempt's RunAttempt was drained: one lost in between (the same Core
// call, before its actions were carried out) is unknown there, as when
// the journal looked workers up by id.
func TestJournalForgetsWorkerLostBeforeDrain(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(`
name: q
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`)
	if err := f.c.WorkerRegistered(f.now, WorkerInfo{ID: "w1", Group: "g", Node: "n1", NodeMB: 2048, MemoryMB: 512}); err != nil {
		t.Fatal(err) // the queued task is placed on w1: a RunAttempt waits
	}
	f.c.WorkerLost(f.now, "w1", "gone") // the RunAttempt to w1 is not drained yet
	f.drain()
	recs := f.c.Attempts("")
	if len(recs) != 1 || recs[0].Worker != "" || recs[0].Node != "" {
		t.Fatalf("journal %+v, want one attempt with no worker or node", recs)
	}
}
