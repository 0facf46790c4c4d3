package core

import (
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

func counted(group, name string, v int64) []Counter {
	return []Counter{{Group: group, Name: name, Value: v}}
}

// A vertex's counters are the sums over its succeeded tasks, each counted
// once by the attempt whose output stands: a failed attempt's counts, and
// those of an output lost and made again, do not add up twice. A DAG's are
// the sums over its vertices; an attempt's record keeps its status.
func TestCountersSumSucceededTasksOnce(t *testing.T) {
	f := newFake(t, CoreOptions{MaxFailedAttempts: 4})
	f.c.EnableJournal()
	id := f.submit(chain)
	f.addWorker("w1", "g", "n1", 1024)
	a0, a1 := f.runningOf(id, "a", 0), f.runningOf(id, "a", 1)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a0, Result: AttemptRunning, Progress: 0.5, Status: "half way"})
	if r, _ := f.c.Attempt(a0); r.Status != "half way" {
		t.Fatalf("running attempt's status %q, want %q", r.Status, "half way")
	}
	// a[1] fails after counting: its counts are no one's.
	delete(f.running, a1)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a1, Result: AttemptFailed, ExitCode: 1, Counters: counted("wc", "lines", 100)})
	f.drain()
	for _, x := range []struct {
		task int
		n    int64
	}{{0, 3}, {1, 4}} {
		at := f.runningOf(id, "a", x.task)
		delete(f.running, at)
		f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: at, Result: AttemptSucceeded, Status: "done",
			Counters: append(counted("wc", "lines", x.n), Counter{Group: "wc", Name: "files", Value: 1})})
	}
	f.drain()
	if r, _ := f.c.Attempt(a0); r.Status != "done" || len(r.Counters) != 2 {
		t.Errorf("attempt record: status %q counters %v, want done and its two counters", r.Status, r.Counters)
	}
	st, _ := f.c.DAG(id)
	want := []Counter{{"wc", "files", 2}, {"wc", "lines", 7}}
	if !reflect.DeepEqual(st.Counters, want) || !reflect.DeepEqual(st.Vertices[0].Counters, want) {
		t.Fatalf("DAG counters %v, vertex a's %v, want %v for both", st.Counters, st.Vertices[0].Counters, want)
	}
	// b[0] cannot read a[0]'s output: a[0] runs again and counts 5 this
	// time, which replaces its 3.
	b0 := f.runningOf(id, "b", 0)
	delete(f.running, b0)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: b0, Result: AttemptFetchFailed, FetchFailedAttempt: a0})
	f.drain()
	again := f.runningOf(id, "a", 0)
	delete(f.running, again)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: again, Result: AttemptSucceeded, Counters: counted("wc", "lines", 5)})
	f.drain()
	for f.finishAll() > 0 {
	}
	st, _ = f.c.DAG(id)
	if want := []Counter{{"wc", "files", 1}, {"wc", "lines", 9}}; st.State != DAGSucceeded || !reflect.DeepEqual(st.Counters, want) {
		t.Fatalf("DAG %s counters %v, want SUCCEEDED %v", st.State, st.Counters, want)
	}

	// A new AM attempt rebuilds the sums from the recovery log's records.
	spec, _ := dag.Parse("test.yaml", []byte(chain))
	r := RecoveredDAG{ID: id, Submission: Submission{Spec: spec}, Submit: f.now, State: DAGSucceeded, Finish: f.now}
	for _, e := range f.c.TakeJournal() {
		r.Succeeded = append(r.Succeeded, RecoveredTask{Vertex: e.Vertex, Task: e.Task, Attempt: e.Attempt, Worker: e.Worker, Counters: e.Counters})
	}
	g := newFake(t, CoreOptions{})
	if err := g.c.Recover(g.now, []RecoveredDAG{r}, RecoverOptions{Window: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if rst, _ := g.c.DAG(id); !reflect.DeepEqual(rst.Counters, st.Counters) {
		t.Fatalf("recovered DAG's counters %v, want %v", rst.Counters, st.Counters)
	}
}
