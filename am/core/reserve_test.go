package core

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// The reserve for newcomers, by hand: one 1000 MB worker, reserve 10% =
// 100 MB. DAG a queues ten 100 MB attempts; it may take the worker's
// memory only down to the reserve: 9 start (100 MB left, and a tenth
// would leave 0 < 100). DAG b arrives with one 100 MB attempt and runs
// none yet, so it may use the reserve: it starts at once, not after one
// of a's attempts ends.
func TestReserveStartsANewcomerAtOnce(t *testing.T) {
	for _, order := range []string{"fifo", "fair"} {
		t.Run(order, func(t *testing.T) {
			o, err := scheduler.NewTaskOrder(order)
			if err != nil {
				t.Fatal(err)
			}
			cfg := scheduler.DefaultAutoscaleConfig()
			f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, Tasks: o, ReservePercent: 10, IdleTimeout: time.Hour})
			f.submit(`
name: a
containerGroup: {name: g, workerMemoryMB: 1000}
vertices: [{name: v, command: "true", parallelism: 10, memoryMB: 100}]
`)
			f.addWorker("w1", "g", "n1", 1000)
			if n := len(f.running); n != 9 {
				t.Fatalf("a runs %d attempts, want 9 (the last 100 MB is the reserve)", n)
			}
			b := f.submit(`
name: b
containerGroup: {name: g, workerMemoryMB: 1000}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 100}]
`)
			if st, _ := f.c.DAG(b); st.Running != 1 {
				t.Fatalf("b runs %d attempts on arrival, want 1 (the reserve is for it)", st.Running)
			}
		})
	}
}

// Without autoscaling nothing grows the group around the reserve, so
// there is none: a takes all ten slots.
func TestNoReserveWithoutAutoscaling(t *testing.T) {
	f := newFake(t, CoreOptions{ReservePercent: 10, IdleTimeout: time.Hour})
	f.submit(`
name: a
containerGroup: {name: g, workerMemoryMB: 1000}
vertices: [{name: v, command: "true", parallelism: 10, memoryMB: 100}]
`)
	f.addWorker("w1", "g", "n1", 1000)
	if n := len(f.running); n != 10 {
		t.Fatalf("a runs %d attempts, want 10", n)
	}
}

// The warm headroom keeps idle workers past the idle timeout: a burst
// of four 1000 MB attempts makes the window's peak demand 4000 MB = 4
// workers, so when the burst is over and the timeout has passed, none of
// the four is stopped while the peak is in the window (15 min); after
// it has left the window, the idle ones go.
func TestHeadroomKeepsIdleWorkersWarm(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	cfg.HeadroomWindow = 15 * time.Minute
	cfg.MinHosts = 4 // keep scale-in out of this test: only the idle timeout acts
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, IdleTimeout: time.Minute, WorkerTimeout: time.Hour})
	f.submit(`
name: burst
containerGroup: {name: g, workerMemoryMB: 1000}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 1000}]
`)
	for _, w := range []string{"w1", "w2", "w3", "w4"} {
		f.addWorker(w, "g", "n"+w[1:], 1000)
	}
	f.tick(cfg.Interval) // the autoscaler sees the demand: 4 × 1000 MB
	f.finishAll()
	for range 6 {
		f.tick(time.Minute)
	}
	if len(f.stopped) != 0 {
		t.Fatalf("stopped %v after 6 idle minutes, want none: the headroom keeps 4", f.stopped)
	}
	for range 12 {
		f.tick(time.Minute)
	}
	if len(f.stopped) != 4 {
		t.Fatalf("stopped %v once the burst left the 15-minute window, want all 4", f.stopped)
	}
}

// Memory the reserve leaves idle while attempts wait beside it counts as
// in use for the autoscaler: one 2048 MB worker, reserve 204 MB, 1024 MB
// attempts. One runs; the second would leave 0 MB < 204 MB and waits, so
// half the worker stands idle. Seen as 50% usage the group would never
// reach the 80% threshold and the DAG would run one attempt at a time (it
// did, on the minicluster); seen as 100% it scales out.
func TestReserveHeldMemoryCountsAsUsed(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, ReservePercent: 10, IdleTimeout: time.Hour})
	f.submit(`
name: a
containerGroup: {name: g, workerMemoryMB: 2048}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 1024}]
`)
	f.addWorker("w1", "g", "n1", 2048)
	if n := len(f.running); n != 1 {
		t.Fatalf("a runs %d attempts, want 1 (a second would eat the reserve)", n)
	}
	f.tick(cfg.Interval)
	gs := f.c.Groups()
	if len(gs) != 1 || gs[0].State != "SCALE_OUT" || f.wanted["g"] < 2 {
		t.Fatalf("group %+v, wanted %d workers: want SCALE_OUT for more than the one worker", gs, f.wanted["g"])
	}
}

// The reserve and a scale-in that waits for a DAG (the minicluster's
// TestYarnScaleInWaitsForActiveDAG failed this way once in six runs): a
// (six 400 MB attempts) fills w1 with two, n1 is drained for a, and w2
// arrives: a takes two of w2's 1000 MB and the reserve (100 MB) holds the
// rest of w2 back from it. When an attempt of a ends on w1, the room it
// leaves there is a's alone (no newcomer may use a drained worker), so
// a's next attempt starts there at once; the reserve counted only the
// group's own room and kept a off the drained worker too.
func TestReserveLeavesADrainedWorkerToItsDAG(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	fair, err := scheduler.NewTaskOrder("fair")
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, Tasks: fair, ReservePercent: 10, IdleTimeout: time.Hour})
	f.submit(`
name: a
containerGroup: {name: g, workerMemoryMB: 1000}
vertices: [{name: v, command: "true", parallelism: 6, memoryMB: 400}]
`)
	f.addWorker("w1", "g", "n1", 1000)
	f.c.DrainNode(f.now, "n1", "test scale-in", true)
	f.drain()
	f.addWorker("w2", "g", "n2", 1000)
	on := func(worker string) []string {
		var ids []string
		for _, id := range sortedKeys(f.running) {
			if f.running[id] == worker {
				ids = append(ids, id)
			}
		}
		return ids
	}
	if n1, n2 := len(on("w1")), len(on("w2")); n1 != 2 || n2 != 2 {
		t.Fatalf("a runs %d on w1 and %d on w2, want 2 and 2 (the reserve holds w2's last 200 MB)", n1, n2)
	}
	done := on("w1")[0]
	delete(f.running, done)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: done, Result: AttemptSucceeded})
	f.drain()
	if n := len(on("w1")); n != 2 {
		t.Errorf("after one of a's attempts ended on the drained w1, w1 runs %d of a's, want 2: its room is a's alone (running %v)", n, f.running)
	}
}
