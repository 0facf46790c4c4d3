package core

import (
	"slices"
	"strings"
	"testing"
)

// With mr3.am.node-blacklisting.enabled, a node where 3 attempts failed
// (100% of those that ended there, over the default 50%) takes no more
// attempts, is avoided for new workers, and its idle worker is stopped;
// the DAG finishes on the other node. Without it, the same failures
// blacklist nothing.
func TestNodeBlacklisting(t *testing.T) {
	for _, on := range []bool{true, false} {
		f := newFake(t, CoreOptions{Blacklisting: on, MaxFailedAttempts: 10})
		id := f.submit(`
name: flaky
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 512}]
`)
		f.addWorker("w1", "g", "n1", 512)
		f.addWorker("w2", "g", "n2", 512)
		failedOnN1 := 0
		for round := 0; round < 20 && len(f.ended) == 0; round++ {
			for _, a := range sortedKeys(f.running) {
				w := f.running[a]
				delete(f.running, a)
				if w == "w1" && failedOnN1 < 3 {
					failedOnN1++
					f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a, Result: AttemptFailed, ExitCode: 1})
				} else {
					f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a, Result: AttemptSucceeded})
				}
			}
			f.drain()
			f.tick(0)
		}
		if st, _ := f.c.DAG(id); st.State != DAGSucceeded {
			t.Fatalf("blacklisting %v: DAG %s", on, st.State)
		}
		why, listed := f.c.Blacklisted()["n1"]
		if listed != on {
			t.Fatalf("blacklisting %v: n1 listed %v (%q)", on, listed, why)
		}
		if !on {
			continue
		}
		if !strings.Contains(why, "3 of 3 attempts failed") {
			t.Errorf("reason %q", why)
		}
		if !slices.Contains(f.avoid, "n1") {
			t.Errorf("new workers may still go to n1: avoid %v", f.avoid)
		}
		if !slices.Contains(f.stopped, "w1") {
			t.Errorf("w1, idle on a blacklisted node, was not stopped (stopped %v)", f.stopped)
		}
	}
}

// mr3.am.resourcescheduler.max.requests.per.taskscheduler: a group asks
// for at most that many workers beyond those it has; more follow as they
// arrive.
func TestMaxPendingRequests(t *testing.T) {
	f := newFake(t, CoreOptions{MaxPendingRequests: 2})
	f.submit(`
name: wide
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 5, memoryMB: 512}]
`)
	if f.wanted["g"] != 2 {
		t.Fatalf("wanted %d, want 2 (5 needed, 2 at a time)", f.wanted["g"])
	}
	f.addWorker("w1", "g", "n1", 512)
	if f.wanted["g"] != 3 {
		t.Fatalf("after one arrived: wanted %d, want 3 (1 live + 2 asked)", f.wanted["g"])
	}
}
