package core

import (
	"fmt"
	"testing"
	"time"
)

const silentTask = `
name: %s
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: v, command: "true", parallelism: 1, memoryMB: 256}
`

// The task timeout (10 min) fails each silent attempt on the first tick
// after its own timeout, although checkTimeouts skips its sweep until the
// oldest running attempt can time out: a (started at 0) goes at 10:05,
// b (started at 5:00) at 15:05, not both at once when a later sweep comes.
// The worker itself is alive: it heartbeats before each tick, listing
// neither attempt.
func TestTaskTimeoutEachOnTime(t *testing.T) {
	f := newFake(t, CoreOptions{TaskTimeout: 10 * time.Minute, WorkerTimeout: 10 * time.Hour, IdleTimeout: 10 * time.Hour})
	f.submit(fmt.Sprintf(silentTask, "a"))
	f.addWorker("w1", "g", "n1", 1024)
	f.drain()
	a := onlyRunning(t, f)
	f.tick(5 * time.Minute) // a is 5 min silent: nothing to fail
	f.c.WorkerHeartbeat(f.now, "w1")
	f.submit(fmt.Sprintf(silentTask, "b"))
	f.drain()
	if len(f.running) != 2 {
		t.Fatalf("running %v, want a's and b's attempts", f.running)
	}
	var b string
	for id := range f.running {
		if id != a {
			b = id
		}
	}
	f.tick(5*time.Minute + 5*time.Second) // 10:05: a is 10:05 silent, b 5:05
	if _, ok := f.running[a]; ok {
		t.Fatalf("at 10:05 a's attempt %s still runs, want it failed (silent 10:05 > 10:00)", a)
	}
	if _, ok := f.running[b]; !ok {
		t.Fatalf("at 10:05 b's attempt %s was failed after 5:05", b)
	}
	f.c.WorkerHeartbeat(f.now, "w1")
	f.tick(5 * time.Minute) // 15:05: b is 10:05 silent
	if _, ok := f.running[b]; ok {
		t.Fatalf("at 15:05 b's attempt %s still runs, want it failed (silent 10:05 > 10:00)", b)
	}
}

// onlyRunning is the id of the one attempt running in f.
func onlyRunning(t *testing.T, f *fakeWorld) string {
	t.Helper()
	if len(f.running) != 1 {
		t.Fatalf("running %v, want one attempt", f.running)
	}
	for id := range f.running {
		return id
	}
	return ""
}

// An attempt its worker lists in every heartbeat is alive, however long it
// runs without writing progress (the progress file is optional); one the
// heartbeats stop listing — the worker lost track of it — times out.
func TestHeartbeatKeepsASilentAttemptAlive(t *testing.T) {
	f := newFake(t, CoreOptions{TaskTimeout: 10 * time.Minute, WorkerTimeout: 10 * time.Hour, IdleTimeout: 10 * time.Hour})
	f.submit(fmt.Sprintf(silentTask, "a"))
	f.addWorker("w1", "g", "n1", 1024)
	f.drain()
	a := onlyRunning(t, f)
	for i := 0; i < 6; i++ { // 30 min of heartbeats every 5 min
		f.tick(5 * time.Minute)
		f.c.WorkerHeartbeat(f.now, "w1", a)
		f.drain()
	}
	if _, ok := f.running[a]; !ok {
		t.Fatalf("after 30 min listed in every heartbeat, %s was failed (task timeout 10 min)", a)
	}
	for i := 0; i < 3; i++ { // heartbeats that no longer list it
		f.tick(5 * time.Minute)
		f.c.WorkerHeartbeat(f.now, "w1")
		f.drain()
	}
	if _, ok := f.running[a]; ok {
		t.Fatalf("15 min after the heartbeats stopped listing it, %s still runs; want it failed", a)
	}
}
