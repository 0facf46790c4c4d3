package core

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

const twoStages = `
name: chain
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: a, command: "true", parallelism: 2, memoryMB: 256}
  - {name: b, command: "true", parallelism: 2, memoryMB: 256}
edges:
  - {from: a, to: b, type: scatter-gather}
`

// A succeeded DAG's slowdown reaches its group's autoscaler: its time from
// submission over its measured critical path (two stages of 10 s: 20 s).
// A DAG submitted before the group's first worker waited for the cold
// start and is not counted.
func TestCoreReportsSlowdowns(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	cfg.Predictive = true
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, IdleTimeout: time.Hour})
	run := func() {
		for range 4 {
			f.tick(10 * time.Second)
			f.finishAll()
		}
	}
	cold := f.submit(twoStages)
	f.tick(time.Minute) // the cold start: no worker for a minute
	f.addWorker("w1", "g", "n1", 1024)
	run()
	if st, _ := f.c.DAG(cold); st.State != DAGSucceeded {
		t.Fatalf("cold DAG %s", st.State)
	}
	as := f.c.groups["g"].as.a
	if _, n := as.MeasuredP95(); n != 0 {
		t.Fatalf("%d DAGs measured after the cold one alone, want 0 (it waited for the first worker)", n)
	}
	warm := f.submit(twoStages)
	f.drain()
	run()
	if st, _ := f.c.DAG(warm); st.State != DAGSucceeded {
		t.Fatalf("warm DAG %s", st.State)
	}
	d := f.c.dags[warm]
	if cp := criticalPath(d); cp != 20*time.Second {
		t.Errorf("critical path %v, want 20s (a's 10 s then b's)", cp)
	}
	if p, n := as.MeasuredP95(); n != 1 || p != 1 {
		t.Errorf("measured p95 %v over %d DAGs, want 1 over 1 (20 s over a 20 s path)", p, n)
	}
}
