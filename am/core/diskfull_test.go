package core

import (
	"testing"
)

// Issue 33, a full disk: w1 (node n1) reports its local directories full
// in a heartbeat, then its attempt's failure. n1 is then as an UNHEALTHY
// node: the re-run goes to w2 on n2, no attempt is placed on n1 again,
// the world is told to avoid n1, and the DAG succeeds.
func TestWorkerReportingAFullDiskDrainsItsNode(t *testing.T) {
	f := newFake(t, CoreOptions{MaxFailedAttempts: 2})
	id := f.submit(`
name: two
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	var onW1 string
	for a, w := range f.running {
		if w == "w1" {
			onW1 = a
		}
	}
	full := "no space left on device: the worker's local directory /x has 0 bytes free"
	f.c.Apply(f.now, WorkerBeat{Worker: "w1", Unhealthy: full})
	f.drain()
	delete(f.running, onW1)
	f.c.Apply(f.now, AttemptUpdated{Worker: "w1", Update: AttemptUpdate{AttemptID: onW1, Result: AttemptFailed, Diagnostics: full}})
	f.drain()
	for range 4 {
		for a, w := range f.running {
			if w == "w1" {
				t.Fatalf("attempt %s placed on w1 after it reported a full disk", a)
			}
		}
		if f.finishAll() == 0 {
			break
		}
	}
	st, _ := f.c.DAG(id)
	if st.State != DAGSucceeded {
		t.Fatalf("DAG %s (%s), want SUCCEEDED on n2", st.State, st.Diagnostics)
	}
	avoided := false
	for _, n := range f.avoid {
		avoided = avoided || n == "n1"
	}
	if !avoided {
		t.Errorf("the world is told to avoid %v, want n1 among them", f.avoid)
	}
}
