package core

import (
	"strings"
	"testing"
	"time"
)

// wedgedExec records the workers the Core stops, and how.
type wedgedExec struct {
	*fakeWorld
	stops []StopWorker
}

func (x *wedgedExec) StopWorker(now time.Time, a StopWorker) {
	x.stops = append(x.stops, a)
	x.fakeWorld.StopWorker(now, a)
}

// Issue 24: a worker wedged with its stream open sends nothing more. With
// the default ratio of the timeouts (task 2 min, worker 10 min), its
// attempt must not be failed by the task timeout at 2 min (that would
// count against the task, and with one allowed failure end the DAG): it is
// the worker that is gone. At 10 min the worker is lost: told to stop at
// once (its container goes back), its attempt runs again elsewhere, and
// the DAG succeeds with no failed attempt.
func TestWedgedWorkerIsLostNotItsTasks(t *testing.T) {
	f := newFake(t, CoreOptions{TaskTimeout: 2 * time.Minute, WorkerTimeout: 10 * time.Minute, IdleTimeout: time.Hour, MaxFailedAttempts: 1})
	x := &wedgedExec{fakeWorld: f}
	drain := func() { f.c.Drain(f.now, x) }
	id := f.submit(`
name: two
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	var onW1, onW2 string
	for a, w := range f.running {
		if w == "w1" {
			onW1 = a
		} else {
			onW2 = a
		}
	}
	if onW1 == "" || onW2 == "" {
		t.Fatalf("running %v, want one attempt on each worker", f.running)
	}
	// Every 10 s w2 heartbeats listing its attempt; w1 says nothing.
	// 10:00 silent is not past the timeout; 10:10 is.
	for elapsed := 10 * time.Second; elapsed <= 10*time.Minute+10*time.Second; elapsed += 10 * time.Second {
		f.now = f.now.Add(10 * time.Second)
		f.c.WorkerHeartbeat(f.now, "w2", onW2)
		f.c.Tick(f.now)
		drain()
		if st, _ := f.c.DAG(id); st.Failed != 0 || st.State.Done() {
			t.Fatalf("at %s the DAG is %s with %d failed attempts: w1's silence was blamed on its task", elapsed, st.State, st.Failed)
		}
		if elapsed <= 10*time.Minute && len(x.stops) != 0 {
			t.Fatalf("at %s (timeout 10 min) stopped %+v", elapsed, x.stops)
		}
	}
	if len(x.stops) != 1 || x.stops[0].Worker != "w1" || x.stops[0].Graceful || !strings.Contains(x.stops[0].Reason, "no heartbeat for 10m10s") {
		t.Fatalf("stops %+v, want w1 stopped at once for no heartbeat for 10m10s", x.stops)
	}
	if !strings.Contains(strings.Join(f.logs, "\n"), "worker w1 lost") {
		t.Errorf("w1's loss not logged:\n%s", strings.Join(f.logs, "\n"))
	}
	// The fake drops what ran on the lost worker; a new worker runs it.
	delete(f.running, onW1)
	f.addWorker("w3", "g", "n3", 512)
	onW3 := 0
	for _, w := range f.running {
		if w == "w3" {
			onW3++
		}
	}
	if onW3 != 1 {
		t.Fatalf("running %v: want w1's task started again on w3", f.running)
	}
	for i := 0; i < 3 && len(f.ended) == 0; i++ {
		f.finishAll()
	}
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded || st.Failed != 0 {
		t.Fatalf("DAG %s with %d failed attempts, want SUCCEEDED with 0", st.State, st.Failed)
	}
}
