package core

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// The recovery side of issue 27's crash test of the commit grant
// (cmd/ebb TestYarnAMKilledAroundCommitGrant): the earlier AM attempt
// granted task 0's backup (attempt 1, on w2) its commit and killed the
// original (attempt 0, on w1) as the loser, then died before it heard the
// backup's success. Both workers come back, the loser's first, each
// saying how its attempt ended. The new attempt must keep the committed
// winner, run task 0 no more, and not count the loser, killed by the
// earlier attempt, as a failure of the task (a loser is never one).
func TestRecoverAfterCommitGrantLoserBackFirst(t *testing.T) {
	spec, err := dag.Parse("test.yaml", []byte(wide(1, ", speculative: true")))
	if err != nil {
		t.Fatal(err)
	}
	r := RecoveredDAG{ID: "dag_0003", Submission: Submission{Spec: spec, Output: "/out", Staging: "/out/_temporary/s"}}
	f := newFake(t, CoreOptions{MaxFailedAttempts: 3})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: time.Minute, Expect: []string{"w1", "w2"}}); err != nil {
		t.Fatal(err)
	}
	x := &countingExec{fakeWorld: f}
	f.c.Drain(f.now, x)
	const loser, winner = "dag_0003_v_000000_0", "dag_0003_v_000000_1"
	back := func(worker, node, attempt string, result AttemptResult) {
		t.Helper()
		f.running[attempt] = worker
		info := WorkerInfo{ID: worker, Group: "g", Node: node, NodeMB: 4096, MemoryMB: 256, Address: worker + ":1", Reconnected: true,
			Attempts: []AdoptedAttempt{{ID: attempt, DAG: "dag_0003", Vertex: "v", Task: 0}}}
		if err := f.c.WorkerRegistered(f.now, info); err != nil {
			t.Fatal(err)
		}
		f.c.Drain(f.now, x)
		// The worker then resends the attempt's end (its final update).
		f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: attempt, Result: result, Progress: 1})
		f.c.Drain(f.now, x)
	}
	back("w1", "n1", loser, AttemptKilled)
	f.tick(time.Second)
	back("w2", "n2", winner, AttemptSucceeded)
	f.tick(time.Second)
	if len(x.runs) != 0 {
		t.Errorf("started %v; want nothing: task 0's winner committed before the AM died", x.runs)
	}
	if len(f.ended) != 1 || f.ended[0].State != DAGSucceeded {
		t.Fatalf("ended %+v, want dag_0003 SUCCEEDED", f.ended)
	}
	d, _ := f.c.DAG("dag_0003")
	if d.Failed != 0 {
		t.Errorf("DAG %s: %d failed attempts, want 0 (the loser was killed, not failed)", d.ID, d.Failed)
	}
}

// A task's attempt numbers stay unique across AM attempts: the original
// (attempt 0, on w1) is adopted; its backup (attempt 1, on w2) comes back
// after it and is refused, killed as not wanted. When the original then
// fails, the task runs again as attempt 2, not as a second attempt 1 that
// could land on w2 while the first is still being killed there.
func TestRecoverRefusedAttemptKeepsItsNumber(t *testing.T) {
	spec, err := dag.Parse("test.yaml", []byte(wide(1, ", speculative: true")))
	if err != nil {
		t.Fatal(err)
	}
	r := RecoveredDAG{ID: "dag_0004", Submission: Submission{Spec: spec, Output: "/out", Staging: "/out/_temporary/s"}}
	f := newFake(t, CoreOptions{MaxFailedAttempts: 3})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: time.Minute, Expect: []string{"w1", "w2"}}); err != nil {
		t.Fatal(err)
	}
	x := &countingExec{fakeWorld: f}
	f.c.Drain(f.now, x)
	for i, worker := range []string{"w1", "w2"} {
		id := fmt.Sprintf("dag_0004_v_000000_%d", i)
		f.running[id] = worker
		info := WorkerInfo{ID: worker, Group: "g", Node: "n" + worker, NodeMB: 4096, MemoryMB: 256, Address: worker + ":1", Reconnected: true,
			Attempts: []AdoptedAttempt{{ID: id, DAG: "dag_0004", Vertex: "v", Task: 0}}}
		if err := f.c.WorkerRegistered(f.now, info); err != nil {
			t.Fatal(err)
		}
		f.c.Drain(f.now, x)
	}
	if want := []string{"dag_0004_v_000000_1"}; !reflect.DeepEqual(x.kills, want) {
		t.Fatalf("killed %v, want the backup %v (its original was adopted first)", x.kills, want)
	}
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: "dag_0004_v_000000_0", Result: AttemptFailed, ExitCode: 1})
	f.c.Drain(f.now, x)
	if want := []string{"dag_0004_v_000000_2"}; !reflect.DeepEqual(x.runs, want) {
		t.Errorf("started %v after the original failed, want %v", x.runs, want)
	}
}

// After a restart the new AM attempt knows neither when an adopted attempt
// began nor, until its worker says so, its progress. An adopted attempt
// that finishes at once must not count as a run of a moment, or the
// adopted attempt beside it, 90% done, looks like a straggler and gets a
// needless backup (seen on the minicluster: task 0 ran twice).
func TestRecoverAdoptedRunsDoNotMakeStragglers(t *testing.T) {
	spec, err := dag.Parse("test.yaml", []byte(wide(2, ", speculative: true")))
	if err != nil {
		t.Fatal(err)
	}
	r := RecoveredDAG{ID: "dag_0005", Submission: Submission{Spec: spec, Output: "/out", Staging: "/out/_temporary/s"}}
	f := newFake(t, specOn())
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: time.Minute, Expect: []string{"w1", "w2"}}); err != nil {
		t.Fatal(err)
	}
	x := &countingExec{fakeWorld: f}
	f.c.Drain(f.now, x)
	for task, worker := range []string{"w1", "w2"} {
		id := fmt.Sprintf("dag_0005_v_%06d_0", task)
		f.running[id] = worker
		info := WorkerInfo{ID: worker, Group: "g", Node: "n" + worker, NodeMB: 4096, MemoryMB: 256, Address: worker + ":1", Reconnected: true,
			Attempts: []AdoptedAttempt{{ID: id, DAG: "dag_0005", Vertex: "v", Task: task}}}
		if err := f.c.WorkerRegistered(f.now, info); err != nil {
			t.Fatal(err)
		}
		f.c.Drain(f.now, x)
	}
	f.addWorker("w3", "g", "n3", 256) // room for a backup
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: "dag_0005_v_000000_0", Result: AttemptRunning, Progress: 0.9})
	f.tick(time.Second)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: "dag_0005_v_000001_0", Result: AttemptSucceeded, Progress: 1})
	f.c.Drain(f.now, x)
	for range 15 {
		f.tick(time.Second)
	}
	f.c.Drain(f.now, x)
	if got := f.byTask("v")[0]; len(x.runs) != 0 || len(got) != 1 {
		t.Errorf("task 0 runs %v (started through the test's executor: %v); want its adopted attempt alone, no backup (90%% done)", got, x.runs)
	}
}
