package core

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// uberOn is the bench's setting: uber on, the key table's thresholds.
var uberOn = UberOptions{Enabled: true, MaxTasks: 10, MaxInputBytes: 128 << 20, MemoryMB: 1024}

const uberWC = `
name: wc
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: map, command: "true", parallelism: 1, memoryMB: 256}
  - {name: reduce, command: "true", parallelism: 2, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`

func mustParse(t *testing.T, spec string) *dag.Spec {
	t.Helper()
	s, err := dag.Parse("test.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// splitsOf: one map task reading n bytes.
func splitsOf(n int64) map[string][][]Split {
	return map[string][][]Split{"map": {{{Path: "in", Length: n}}}}
}

func TestUberQualifies(t *testing.T) {
	wc := mustParse(t, uberWC)
	gpu := mustParse(t, strings.Replace(uberWC, "workerMemoryMB: 1024}", "workerMemoryMB: 1024, resources: {yarn.io/gpu: 1}}", 1))
	big := mustParse(t, strings.Replace(uberWC, "parallelism: 2, memoryMB: 256", "parallelism: 10, memoryMB: 256", 1))
	fat := mustParse(t, strings.NewReplacer("parallelism: 2, memoryMB: 256", "parallelism: 2, memoryMB: 2048",
		"workerMemoryMB: 1024", "workerMemoryMB: 4096").Replace(uberWC))
	off := uberOn
	off.Enabled = false
	for _, tc := range []struct {
		name   string
		o      UberOptions
		spec   *dag.Spec
		bytes  int64
		ok     bool
		reason string
	}{
		{"the 1 MiB word count: 3 tasks, 1 MiB", uberOn, wc, 1 << 20, true, ""},
		{"off by default", off, wc, 1 << 20, false, "ebb.am.uber.enabled is false"},
		// 1 + 10 = 11 tasks > 10
		{"too many tasks", uberOn, big, 1 << 20, false, "11 tasks, more than ebb.am.uber.max.tasks=10"},
		// exactly 128 MiB is still small (MapReduce's maxbytes is inclusive too)
		{"input at the limit", uberOn, wc, 128 << 20, true, ""},
		{"input over the limit", uberOn, wc, 128<<20 + 1, false, "more than ebb.am.uber.max.input.mb=128 MB"},
		{"a task larger than the in-AM worker", uberOn, fat, 1 << 20, false, "vertex reduce's tasks ask 2048 MB, more than ebb.am.uber.memory.mb=1024"},
		{"a GPU group", uberOn, gpu, 1 << 20, false, "resource types"},
	} {
		ok, why := UberQualifies(tc.o, tc.spec, splitsOf(tc.bytes))
		if ok != tc.ok || !strings.Contains(why, tc.reason) {
			t.Errorf("%s: UberQualifies = %v, %q; want %v, %q", tc.name, ok, why, tc.ok, tc.reason)
		}
	}
}

// A small DAG starts the in-AM worker, asks the world for no worker
// before or after it registers, and runs every task on it.
func TestUberDAGRunsOnTheAMWorkerWithoutAsks(t *testing.T) {
	f := newFake(t, CoreOptions{Uber: uberOn})
	id, err := f.c.SubmitDAG(f.now, Submission{Spec: mustParse(t, uberWC), Splits: splitsOf(1 << 20)})
	if err != nil {
		t.Fatal(err)
	}
	f.drain()
	if len(f.amStart) != 1 || f.amStart[0].Group.Name != "g" || f.amStart[0].MemoryMB != 1024 {
		t.Fatalf("StartAMWorker actions %+v, want one for group g of 1024 MB", f.amStart)
	}
	if f.wanted["g"] != 0 {
		t.Fatalf("the world was asked for %d workers before the in-AM worker registered, want 0", f.wanted["g"])
	}
	amw := f.amStart[0].Worker
	f.addWorker(amw, "g", "am-node", 1024)
	if f.wanted["g"] != 0 {
		t.Fatalf("the world was asked for %d workers with the in-AM worker registered, want 0", f.wanted["g"])
	}
	for f.finishAllOn(t, amw) > 0 {
	}
	if len(f.ended) != 1 || f.ended[0].ID != id || f.ended[0].State != DAGSucceeded {
		t.Fatalf("ended %+v, want %s SUCCEEDED", f.ended, id)
	}
}

// finishAllOn completes every running attempt, failing the test if one
// runs on a worker other than worker.
func (f *fakeWorld) finishAllOn(t *testing.T, worker string) int {
	for a, w := range f.running {
		if w != worker {
			t.Fatalf("attempt %s runs on %s, want the in-AM worker %s", a, w, worker)
		}
	}
	return f.finishAll()
}

// A large DAG (and every DAG with uber off) asks the world as before.
func TestLargeDAGAsksTheWorld(t *testing.T) {
	f := newFake(t, CoreOptions{Uber: uberOn})
	if _, err := f.c.SubmitDAG(f.now, Submission{Spec: mustParse(t, uberWC), Splits: splitsOf(200 << 20)}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	if len(f.amStart) != 0 || f.wanted["g"] == 0 {
		t.Fatalf("StartAMWorker %+v, wanted %d: want none and an ask of the world", f.amStart, f.wanted["g"])
	}
}

// An in-AM worker that cannot start (or is lost) hands its DAG to worker
// containers: the group asks the world, and the DAG runs there.
func TestUberFallsBackWhenTheAMWorkerIsGone(t *testing.T) {
	f := newFake(t, CoreOptions{Uber: uberOn})
	if _, err := f.c.SubmitDAG(f.now, Submission{Spec: mustParse(t, uberWC), Splits: splitsOf(1 << 20)}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	f.c.Apply(f.now, WorkerGone{Worker: f.amStart[0].Worker, Reason: "not started", Exited: true})
	f.drain()
	if f.wanted["g"] == 0 {
		t.Fatal("the in-AM worker is gone and the world was asked for no worker: the DAG would wait for ever")
	}
	f.addWorker("c1", "g", "n1", 1024)
	for f.finishAllOn(t, "c1") > 0 {
	}
	if len(f.ended) != 1 || f.ended[0].State != DAGSucceeded {
		t.Fatalf("ended %+v, want SUCCEEDED", f.ended)
	}
}

// A small DAG the earlier AM attempt ran (its in-AM worker died with that
// attempt's container) gets this attempt's in-AM worker: the outputs it
// lost are recomputed there, with no ask of the world, and the DAG
// succeeds under its own id.
func TestRecoveredSmallDAGRunsOnTheNewAMWorker(t *testing.T) {
	r, _ := firstAttempt(t)
	f := newFake(t, CoreOptions{Uber: uberOn})
	if err := f.c.Recover(f.now, []RecoveredDAG{r}, RecoverOptions{}); err != nil {
		t.Fatal(err)
	}
	f.tick(time.Second)
	if len(f.amStart) != 1 {
		t.Fatalf("StartAMWorker actions %+v, want one", f.amStart)
	}
	amw := f.amStart[0].Worker
	f.addWorker(amw, "g", "am-node", 1024)
	if f.wanted["g"] != 0 {
		t.Fatalf("the world was asked for %d workers, want 0", f.wanted["g"])
	}
	if got := sortedKeys(f.running); !reflect.DeepEqual(got, []string{"dag_0001_a_000000_1", "dag_0001_a_000001_1"}) {
		t.Fatalf("running %v, want a again (its outputs went with the old in-AM worker)", got)
	}
	for f.finishAllOn(t, amw) > 0 {
	}
	if len(f.ended) != 1 || f.ended[0].ID != r.ID || f.ended[0].State != DAGSucceeded {
		t.Fatalf("ended %+v, want %s SUCCEEDED", f.ended, r.ID)
	}
}

// An in-AM worker that never registers is stopped after the worker
// timeout, and its DAG asks the world for workers instead of waiting.
func TestUberGivesUpAnAMWorkerThatNeverRegisters(t *testing.T) {
	f := newFake(t, CoreOptions{Uber: uberOn})
	if _, err := f.c.SubmitDAG(f.now, Submission{Spec: mustParse(t, uberWC), Splits: splitsOf(1 << 20)}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	timeout := f.c.opts.WorkerTimeout
	f.tick(timeout - time.Millisecond)
	if f.wanted["g"] != 0 || len(f.stopped) != 0 {
		t.Fatalf("before the timeout: wanted %d, stopped %v; want 0 and none", f.wanted["g"], f.stopped)
	}
	f.tick(time.Millisecond)
	if f.wanted["g"] == 0 || len(f.stopped) != 1 || f.stopped[0] != f.amStart[0].Worker {
		t.Fatalf("after %s: wanted %d, stopped %v; want an ask of the world and %s stopped", timeout, f.wanted["g"], f.stopped, f.amStart[0].Worker)
	}
}
