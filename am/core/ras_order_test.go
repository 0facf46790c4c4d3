package core

import (
	"fmt"
	"testing"
	"time"
)

// rasDAG is a one-vertex DAG of n tasks that take a quarter of a node's CPU
// each, so one 4000 MB worker (memory for 16) runs 4 at once.
func rasDAG(name, goal string, n int) string {
	return fmt.Sprintf(`
name: %s
%s
containerGroup: {name: g, workerMemoryMB: 4000}
vertices: [{name: v, command: "true", parallelism: %d, memoryMB: 250, profile: {cpu: 0.25, memory: 0.1, io: 0.1}}]
`, name, goal, n)
}

// finishOne completes the running attempt of the named DAG whose id sorts
// first, after d.
func (f *fakeWorld) finishOne(dagName string, d time.Duration) {
	f.t.Helper()
	f.now = f.now.Add(d)
	for _, id := range sortedKeys(f.running) {
		if f.c.attempt[id].task.vertex.dag.spec.Name == dagName {
			delete(f.running, id)
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
			f.drain()
			return
		}
	}
	f.t.Fatalf("%s has no attempt running (running %v)", dagName, running(f))
}

// A DAG far ahead of its goal holds the node when an urgent one arrives;
// the urgent one gets the slots that free next, one by one, without
// waiting for the next control cycle, until the early DAG is down to what
// its own goal needs: the paper's task scheduler gives a freed slot to the
// lowest utility whose task fits.
func TestRASLateUrgentDAGGetsFreedSlots(t *testing.T) {
	f := newFake(t, CoreOptions{Tasks: order(t, "ras"), RASCycle: 30 * time.Second})
	f.submit(rasDAG("early", "goal: {within: 10h}", 40))
	f.addWorker("w1", "g", "n1", 4000)
	// Two rounds of 4 give the plan evidence: the round at +40 s is past
	// the 30 s cycle, so early is planned again with a mean task time of
	// 10 to 30 s: s_req = ceil(36 x 30 s / (10 h - 40 s)) = 1.
	f.tick(10 * time.Second)
	f.finishAll()
	f.tick(30 * time.Second)
	f.finishAll()
	if r := running(f); r["early"] != 4 {
		t.Fatalf("running %v, want early on all 4 slots", r)
	}
	f.submit(rasDAG("late", "goal: {within: 2m}", 8))
	// early with k of its 32 unfinished running, s_req 1: (k-1)/(32-1),
	// at least 0. late is newer than the plan, so s_req = its 8 tasks:
	// the floor at 0 running, then log k / log 8 - 1 = -1, -0.67, -0.47
	// for k = 1..3: below early's every time a slot frees, until early
	// runs nothing: 0 of its s_req 1 is the floor, so the fourth slot
	// is early's (the one task its own goal needs).
	var got []string
	for i := 0; i < 4; i++ {
		f.finishOne("early", time.Second)
		got = append(got, fmt.Sprint(running(f)))
	}
	want := "[map[early:3 late:1] map[early:2 late:2] map[early:1 late:3] map[early:1 late:3]]"
	if fmt.Sprint(got) != want {
		t.Errorf("after each of early's attempts ends:\n got %v\nwant %s", got, want)
	}
}
