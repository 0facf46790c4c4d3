package core

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// chain: a (2 tasks) → b (2 tasks) → c (1 task, the sink). Workers of
// 1024 MB hold four 256 MB attempts each.
const chain = `
name: chain
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: a, command: "true", parallelism: 2, memoryMB: 256}
  - {name: b, command: "true", parallelism: 2, memoryMB: 256}
  - {name: c, command: "true", parallelism: 1, memoryMB: 256}
edges:
  - {from: a, to: b, type: scatter-gather}
  - {from: b, to: c, type: scatter-gather}
`

// firstAttempt runs chain on worker w1 until a is done and b runs, and
// returns what its recovery log would hold: the DAG and its journal.
func firstAttempt(t *testing.T) (RecoveredDAG, *fakeWorld) {
	f := newFake(t, CoreOptions{})
	f.c.EnableJournal()
	id := f.submit(chain)
	f.addWorker("w1", "g", "n1", 1024)
	if n := f.finishAll(); n != 2 { // a0, a1
		t.Fatalf("finished %d attempts of a, want 2", n)
	}
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0001_b_000000_0", "dag_0001_b_000001_0"}) {
		t.Fatalf("running %v, want both b tasks", got)
	}
	spec, _ := dag.Parse("test.yaml", []byte(chain))
	r := RecoveredDAG{ID: id, Submission: Submission{Spec: spec}, Submit: f.now}
	for _, e := range f.c.TakeJournal() {
		r.Succeeded = append(r.Succeeded, RecoveredTask{Vertex: e.Vertex, Task: e.Task, Attempt: e.Attempt, Worker: e.Worker})
	}
	want := []RecoveredTask{{"a", 0, "dag_0001_a_000000_0", "w1", nil}, {"a", 1, "dag_0001_a_000001_0", "w1", nil}}
	if !reflect.DeepEqual(r.Succeeded, want) {
		t.Fatalf("journal %+v, want %+v", r.Succeeded, want)
	}
	return r, f
}

// TestRecoverKeepsOutputsOfAWorkerThatCameBack: the worker holding a's
// outputs re-registers with the new attempt and reports b's attempts
// still running: a is not run again, b's attempts are adopted, the DAG
// keeps its id and finishes.
func TestRecoverKeepsOutputsOfAWorkerThatCameBack(t *testing.T) {
	r, _ := firstAttempt(t)
	f := newFake(t, CoreOptions{})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	if !f.c.Recovering() {
		t.Fatal("not waiting for w1, which holds a's outputs")
	}
	if f.wanted["g"] != 0 || len(f.running) != 0 {
		t.Fatalf("while waiting: wanted %d workers, running %v; want nothing (w1 is coming back)", f.wanted["g"], f.running)
	}
	// w1 rejoins running both b attempts: they are adopted before the
	// DAG queues anything, so nothing new starts.
	info := WorkerInfo{ID: "w1", Group: "g", Node: "n1", NodeMB: 4096, MemoryMB: 1024, Address: "w1:1", Reconnected: true,
		Outputs: []string{"dag_0001_a_000000_0", "dag_0001_a_000001_0"}}
	for task := 0; task < 2; task++ {
		info.Attempts = append(info.Attempts, AdoptedAttempt{ID: fmt.Sprintf("dag_0001_b_%06d_0", task), DAG: "dag_0001", Vertex: "b", Task: task})
	}
	if err := f.c.WorkerRegistered(f.now, info); err != nil {
		t.Fatal(err)
	}
	x := &countingExec{fakeWorld: f}
	f.c.Drain(f.now, x)
	if f.c.Recovering() {
		t.Fatal("still recovering after w1 came back")
	}
	if len(x.runs)+len(x.kills) != 0 {
		t.Fatalf("started %v and killed %v; want neither: a's outputs are on w1 and b's attempts were adopted", x.runs, x.kills)
	}
	if d, _ := f.c.DAG("dag_0001"); d.State != DAGRunning || d.Running != 2 || d.Succeeded != 2 || !d.Recovered {
		t.Fatalf("DAG %+v; want RUNNING, recovered, 2 done and the 2 adopted attempts running", d)
	}
	for _, id := range []string{"dag_0001_b_000000_0", "dag_0001_b_000001_0"} {
		f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
	}
	f.drain()
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0001_c_000000_0"}) {
		t.Fatalf("running %v, want the sink only", got)
	}
	f.finishAll()
	if len(f.ended) != 1 || f.ended[0].ID != "dag_0001" || f.ended[0].State != DAGSucceeded {
		t.Fatalf("ended %+v, want dag_0001 SUCCEEDED", f.ended)
	}
}

// TestRecoverRecomputesOutputsOfAWorkerThatDidNotComeBack: the window
// passes without w1; a runs again with new attempt numbers (ids never
// reused), then b.
func TestRecoverRecomputesOutputsOfAWorkerThatDidNotComeBack(t *testing.T) {
	r, _ := firstAttempt(t)
	f := newFake(t, CoreOptions{})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	f.tick(29 * time.Second)
	if !f.c.Recovering() {
		t.Fatal("gave up on w1 before the window passed")
	}
	f.tick(time.Second) // 30 s: the window has passed
	if f.c.Recovering() {
		t.Fatal("still waiting after the window")
	}
	f.addWorker("w2", "g", "n2", 1024)
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0001_a_000000_1", "dag_0001_a_000001_1"}) {
		t.Fatalf("running %v, want a again as attempt 1 of each task", got)
	}
}

// TestRecoverKeepsCommittedSinkOutputs: a sink task that succeeded is
// committed: it is not run again, whatever came back.
func TestRecoverKeepsCommittedSinkOutputs(t *testing.T) {
	spec := flatSpec(t, 3)
	r := RecoveredDAG{ID: "dag_0004", Submission: Submission{Spec: spec}, Succeeded: []RecoveredTask{
		{Vertex: "v", Task: 0, Attempt: "dag_0004_v_000000_0"}, {Vertex: "v", Task: 2, Attempt: "dag_0004_v_000002_1"}}}
	f := newFake(t, CoreOptions{})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: time.Minute}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	if f.c.Recovering() {
		t.Fatal("waiting for workers although no needed output is on one")
	}
	f.addWorker("w1", "g", "n1", 1024)
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0004_v_000001_0"}) {
		t.Fatalf("running %v, want only the task that had not succeeded", got)
	}
	// DAG ids go on after the recovered ones.
	id := f.submit(strings.Replace(chain, "name: chain", "name: later", 1))
	if id != "dag_0005" {
		t.Fatalf("a new DAG got id %s, want dag_0005", id)
	}
}

// TestRecoveryOffFailsUnfinishedDAGsAndListsEndedOnes: with
// mr3.dag.recovery.enabled=false the unfinished DAG ends FAILED with the
// reason, an ended one is listed as it ended, and new DAGs still run.
func TestRecoveryOffFailsUnfinishedDAGsAndListsEndedOnes(t *testing.T) {
	r, _ := firstAttempt(t)
	spec, _ := dag.Parse("test.yaml", []byte(chain))
	done := RecoveredDAG{ID: "dag_0002", Submission: Submission{Spec: spec}, Ended: true, State: DAGKilled, Diagnostics: "killed by client"}
	r.ID = "dag_0001"
	f := newFake(t, CoreOptions{})
	if err := f.c.Recover(f.now, []RecoveredDAG{r, done}, RecoverOptions{Window: time.Minute, Off: true}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	if len(f.ended) != 1 || f.ended[0].ID != "dag_0001" || f.ended[0].State != DAGFailed || f.ended[0].Diagnostics != RecoveryOffReason {
		t.Fatalf("ended %+v, want dag_0001 FAILED: %s", f.ended, RecoveryOffReason)
	}
	var states []string
	for _, d := range f.c.DAGs() {
		states = append(states, d.ID+" "+d.State.String())
	}
	sort.Strings(states)
	if !reflect.DeepEqual(states, []string{"dag_0001 FAILED", "dag_0002 KILLED"}) {
		t.Fatalf("DAGs %v", states)
	}
	if id := f.submit(chain); id != "dag_0003" {
		t.Fatalf("new DAG id %s, want dag_0003", id)
	}
	f.addWorker("w9", "g", "n1", 1024)
	if len(f.running) != 2 {
		t.Fatalf("the session does not run new DAGs: running %v", f.running)
	}
}

// TestAdoptRefusesAnAttemptNobodyWants: an attempt of an ended DAG is
// killed, not adopted.
func TestAdoptRefusesAnAttemptNobodyWants(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.addWorkerGroup(chain)
	f.running["dag_0009_a_000000_0"] = "w1"
	f.c.AdoptAttempt(f.now, "w1", AdoptedAttempt{ID: "dag_0009_a_000000_0", DAG: "dag_0009", Vertex: "a", Task: 0})
	f.drain()
	if _, ok := f.running["dag_0009_a_000000_0"]; ok {
		t.Fatal("an attempt of an unknown DAG was not killed")
	}
}

// addWorkerGroup makes group g exist (a DAG names it) and registers w1.
func (f *fakeWorld) addWorkerGroup(spec string) {
	f.submit(spec)
	f.addWorker("w1", "g", "n1", 1024)
	for id := range f.running {
		delete(f.running, id)
	}
}

// countingExec records every attempt the Core starts or kills.
type countingExec struct {
	*fakeWorld
	runs, kills []string
}

func (x *countingExec) RunAttempt(now time.Time, a RunAttempt) {
	x.runs = append(x.runs, a.Attempt.ID)
	x.fakeWorld.RunAttempt(now, a)
}

func (x *countingExec) KillAttempt(now time.Time, a KillAttempt) {
	x.kills = append(x.kills, a.AttemptID)
	x.fakeWorld.KillAttempt(now, a)
}

// TestRecoverWaitsForAliveWorkersToAdoptTheirAttempts: nothing the DAG
// needs is on a worker (its one vertex is a sink), but YARN kept w1, which
// runs one of its attempts: the wait lasts until w1 is back, so that
// attempt is adopted instead of queued again and then killed.
func TestRecoverWaitsForAliveWorkersToAdoptTheirAttempts(t *testing.T) {
	f := recoverWithW1Back(t)
	x := &countingExec{fakeWorld: f}
	f.c.Drain(f.now, x)
	if len(x.kills) != 0 || !reflect.DeepEqual(x.runs, []string{"dag_0002_v_000001_0"}) {
		t.Fatalf("started %v, killed %v; want task 1 started and task 0's attempt adopted", x.runs, x.kills)
	}
}

// recoverWithW1Back recovers dag_0002 (one sink vertex v of two tasks)
// expecting w1, which YARN kept, and registers w1 back running task 0's
// attempt.
func recoverWithW1Back(t *testing.T) *fakeWorld {
	t.Helper()
	return recoverWithW1BackSaying(t, -time.Minute)
}

// recoverWithW1BackSaying is recoverWithW1Back with w1 saying it took its
// attempt at started from now (the fake's start).
func recoverWithW1BackSaying(t *testing.T, started time.Duration) *fakeWorld {
	t.Helper()
	f := newFake(t, CoreOptions{})
	r := RecoveredDAG{ID: "dag_0002", Submission: Submission{Spec: flatSpec(t, 2)}}
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: time.Minute, Expect: []string{"w1"}}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	if !f.c.Recovering() {
		t.Fatal("not waiting for w1, which YARN kept")
	}
	info := WorkerInfo{ID: "w1", Group: "g", Node: "n1", NodeMB: 4096, MemoryMB: 1024, ContainerID: "c1", Reconnected: true,
		Attempts: []AdoptedAttempt{{ID: "dag_0002_v_000000_0", DAG: "dag_0002", Vertex: "v", Task: 0, Started: f.now.Add(started)}}}
	if err := f.c.WorkerRegistered(f.now, info); err != nil {
		t.Fatal(err)
	}
	return f
}

// flatSpec is a DAG of one vertex v of n tasks, in group g.
func flatSpec(t *testing.T, n int) *dag.Spec {
	t.Helper()
	spec, err := dag.Parse("test.yaml", []byte(fmt.Sprintf(`
name: flat
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: v, command: "true", parallelism: %d, memoryMB: 256}
`, n)))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestRecoverAdoptedAttemptIsInTheAttemptList: an attempt adopted from a
// rejoining worker is listed (the UI's attempts of a DAG) from its
// adoption, where it runs, with its progress and its end; before, only
// attempts this AM attempt started had a record.
func TestRecoverAdoptedAttemptIsInTheAttemptList(t *testing.T) {
	f := recoverWithW1Back(t)
	f.drain()
	r, ok := f.c.Attempt("dag_0002_v_000000_0")
	// Its start is when w1 took it, a minute before the adoption.
	want := AttemptRecord{ID: "dag_0002_v_000000_0", DAG: "dag_0002", Vertex: "v", Task: 0, Number: 0, MemoryMB: 256,
		Worker: "w1", Container: "c1", Node: "n1", Start: f.now.Add(-time.Minute), State: "RUNNING"}
	if !ok || !reflect.DeepEqual(r, want) {
		t.Fatalf("the adopted attempt's record: %+v (found %v), want %+v", r, ok, want)
	}
	// A start later than the adoption (w1's clock ahead of the AM's) is
	// the adoption.
	ahead := recoverWithW1BackSaying(t, time.Minute)
	ahead.drain()
	if r, _ := ahead.c.Attempt("dag_0002_v_000000_0"); !r.Start.Equal(ahead.now) {
		t.Errorf("with w1's clock a minute ahead: start %v, want the adoption %v", r.Start, ahead.now)
	}
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: "dag_0002_v_000000_0", Result: AttemptRunning, Progress: 0.5})
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: "dag_0002_v_000000_0", Result: AttemptSucceeded})
	f.drain()
	if r, _ := f.c.Attempt("dag_0002_v_000000_0"); r.State != "SUCCEEDED" || r.Progress != 1 {
		t.Fatalf("the adopted attempt after its end: %+v, want SUCCEEDED", r)
	}
	if n := len(f.c.Attempts("dag_0002")); n != 2 {
		t.Fatalf("%d attempts listed for dag_0002, want 2 (the adopted one and task 1's)", n)
	}
}

// TestRecoverRerunsExactlyTheOutputAWorkerLost: w1 comes back, but without
// a1's output (its directory is gone, as after a disk was replaced) and
// without b's attempts. a1 alone runs again, as attempt 1; a0's output is
// kept where it is.
func TestRecoverRerunsExactlyTheOutputAWorkerLost(t *testing.T) {
	r, _ := firstAttempt(t)
	f := newFake(t, CoreOptions{})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	info := WorkerInfo{ID: "w1", Group: "g", Node: "n1", NodeMB: 4096, MemoryMB: 1024, Address: "w1:1", Reconnected: true,
		Outputs: []string{"dag_0001_a_000000_0"}}
	if err := f.c.WorkerRegistered(f.now, info); err != nil {
		t.Fatal(err)
	}
	x := &countingExec{fakeWorld: f}
	f.c.Drain(f.now, x)
	if f.c.Recovering() {
		t.Fatal("still recovering after w1 came back")
	}
	if !reflect.DeepEqual(x.runs, []string{"dag_0001_a_000001_1"}) {
		t.Fatalf("started %v; want exactly a1 again (its output is gone), not a0 (w1 still holds it)", x.runs)
	}
	if d, _ := f.c.DAG("dag_0001"); d.Succeeded != 1 {
		t.Errorf("DAG %+v; want 1 task succeeded (a0) while a1 reruns", d)
	}
}

// A new AM attempt numbers a recovered task's attempts past any number an
// earlier AM attempt could have used: b's attempts _0 ran on w1 when the
// AM died, and w1 never came back, but it may still run them (cut off, not
// dead), writing to the staging directories their ids name. The second AM
// attempt's b attempts are _1000, never _0 again; so are a's re-runs.
func TestRecoverNumbersAttemptsPastTheEarlierAMAttempt(t *testing.T) {
	r, _ := firstAttempt(t)
	f := newFake(t, CoreOptions{})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{Window: 30 * time.Second, AMAttempt: 2}); err != nil {
		t.Fatal(err)
	}
	f.tick(30 * time.Second) // w1 is not back within the window
	f.addWorker("w2", "g", "n2", 1024)
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0001_a_000000_1000", "dag_0001_a_000001_1000"}) {
		t.Fatalf("running %v, want a again as attempt 1000 of each task", got)
	}
	if n := f.finishAll(); n != 2 {
		t.Fatalf("finished %d attempts of a, want 2", n)
	}
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0001_b_000000_1000", "dag_0001_b_000001_1000"}) {
		t.Fatalf("running %v, want b as attempt 1000 of each task (its attempts _0 may still run on w1)", got)
	}
}
