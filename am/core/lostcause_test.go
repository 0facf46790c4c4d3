package core

import (
	"testing"
	"time"
)

// A cause that comes after the loss counts against it: a -102 with no
// warning after the connection closed is a preemption, an eviction is an
// eviction; a plain end, or a cause later than unexplainedWindow, counts
// nothing; the same cause twice counts once. No failure in any case.
func TestLateCauseCountsAgainstTheLoss(t *testing.T) {
	f := preemptFixture(t) // w1..w4 in group g
	closed := func(id string) { f.apply(WorkerGone{Worker: id, Reason: "connection closed: EOF"}) }
	closed("w2")
	f.apply(WorkerGone{Worker: "w2", Reason: "exit status -102", Exited: true, Preempted: true})
	f.apply(WorkerGone{Worker: "w2", Reason: "exit status -102", Exited: true, Preempted: true})
	closed("w3")
	f.apply(WorkerGone{Worker: "w3", Reason: "pod evicted", Exited: true, Evicted: true})
	closed("w4")
	f.apply(WorkerGone{Worker: "w4", Reason: "exit status 143", Exited: true})
	f.apply(WorkerGone{Worker: "w4", Reason: "exit status -102", Exited: true, Preempted: true}) // after the world's last word
	closed("w1")
	f.tick(unexplainedWindow)
	f.apply(WorkerGone{Worker: "w1", Reason: "exit status -102", Exited: true, Preempted: true})
	if got, want := f.c.Groups()[0].Preempt, (PreemptCounts{Lost: 1, Evicted: 1}); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	if len(f.c.unexplained) != 0 {
		t.Errorf("%d unexplained losses kept, want none", len(f.c.unexplained))
	}
	for _, d := range f.c.DAGs() {
		if d.Failed != 0 {
			t.Errorf("DAG %s: %d failed attempts, want 0", d.ID, d.Failed)
		}
	}
}

// A silent worker's loss waits for its cause too (its node unreachable,
// the taint manager evicts its pod later).
func TestSilentWorkerLossTakesALateEviction(t *testing.T) {
	f := newFake(t, CoreOptions{WorkerTimeout: 30 * time.Second})
	f.submit(preemptDAG)
	f.addWorker("w1", "g", "n1", 512)
	f.tick(31 * time.Second)
	f.apply(WorkerGone{Worker: "w1", Reason: "DeletionByTaintManager", Exited: true, Evicted: true})
	if got := f.c.Groups()[0].Preempt.Evicted; got != 1 {
		t.Errorf("evicted %d, want 1", got)
	}
}
