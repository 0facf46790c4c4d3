package core

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// PaidUntil on hand-picked instants, an hourly meter started at 0: a
// started hour is paid to its end, and at an exact boundary the next hour
// has begun.
func TestPaidUntil(t *testing.T) {
	start := time.Unix(0, 0)
	for _, c := range []struct{ now, want int64 }{
		{0, 3600}, {1, 3600}, {3599, 3600}, {3600, 7200}, {7300, 10800}, {-10, 3600},
	} {
		if got := PaidUntil(start, time.Hour, time.Unix(c.now, 0)); got.Unix() != c.want {
			t.Errorf("PaidUntil(at %d) = %d, want %d", c.now, got.Unix(), c.want)
		}
	}
}

// On a world that cannot say when a node's billing began (YARN, local) the
// Core counts hours from when it first saw the node, less the offset
// (ebb.billing.start.offset.secs), and keeps counting after the node's
// last worker leaves. The fake's clock starts at 1000 s; the offset is
// 240 s, so n1's meter starts at 760 s: paid until 760 + 3600 = 4360 s,
// and after a new worker at 5000 s until 760 + 2 × 3600 = 7960 s.
func TestNodePaidFromFirstSeen(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	cfg.BillingPeriod = time.Hour
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, BillingStartOffset: 240 * time.Second})
	f.submit(`
name: one
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 1024}]
`)
	f.addWorker("w1", "g", "n1", 1024)
	f.tick(100 * time.Second)
	snap := f.c.groupSnapshot(f.c.groups["g"])
	if len(snap.Nodes) != 1 || snap.Nodes[0].PaidUntil.Unix() != 4360 {
		t.Fatalf("nodes %+v, want n1 paid until 4360", snap.Nodes)
	}
	f.c.WorkerLost(f.now, "w1", "test")
	f.drain()
	f.now = time.Unix(5000, 0)
	f.addWorker("w2", "g", "n1", 1024)
	if got := f.c.nodePaidUntil("n1"); got.Unix() != 7960 {
		t.Errorf("after the node came back: paid until %d, want 7960", got.Unix())
	}
	if got := f.c.nodePaidUntil("n9"); !got.IsZero() {
		t.Errorf("a node never seen: paid until %v, want unknown (zero)", got)
	}
}

// The work in sight, per vertex: four 1024 MB tasks on one 1024 MB worker.
// The first attempt takes 30 s, so the vertex's attempts take 30 s. 10 s
// into the second, 2 are queued (2 × 1024 × 30 = 61440 MB·s) and the
// running one has 20 s left (1024 × 20 = 20480 MB·s), the node's
// Remaining. A second vertex waiting for the first (2 tasks of 512 MB) has
// no finished attempt of its own; the DAG's mean (30 s) stands in:
// 2 × 512 × 30 = 30720 MB·s predicted to arrive.
func TestEstimateWorkPerVertex(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	cfg.Predictive = true
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, IdleTimeout: time.Hour})
	f.submit(`
name: two
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: a, command: "true", parallelism: 4, memoryMB: 1024}
  - {name: b, command: "true", parallelism: 2, memoryMB: 512}
edges:
  - {from: a, to: b, type: scatter-gather}
`)
	f.addWorker("w1", "g", "n1", 1024)
	f.now = f.now.Add(30 * time.Second)
	if n := f.finishAll(); n != 1 {
		t.Fatalf("finished %d attempts, want 1", n)
	}
	f.tick(10 * time.Second) // the Core's clock moves only with an event
	snap := f.c.groupSnapshot(f.c.groups["g"])
	if snap.QueuedWork != 61440 || snap.RunningWork != 20480 || snap.WaitingWork != 30720 || snap.UnknownQueued != 0 {
		t.Errorf("queued %v, running %v, waiting %v MB·s, %d unknown; want 61440, 20480, 30720, 0",
			snap.QueuedWork, snap.RunningWork, snap.WaitingWork, snap.UnknownQueued)
	}
	if len(snap.Nodes) != 1 || snap.Nodes[0].Remaining != 20*time.Second {
		t.Errorf("nodes %+v, want n1 with 20 s remaining", snap.Nodes)
	}
}

// estimate's order of evidence: the vertex's own mean (60 s over 2 = 30 s)
// before its DAG's (100 s over 4 = 25 s), the DAG's before the group's
// fallback (40 s), and nothing without any evidence.
func TestEstimateOrder(t *testing.T) {
	d := &dagRun{attemptTime: 100 * time.Second, attemptsDone: 4}
	v := &vertexRun{dag: d, doneTime: 60 * time.Second, doneN: 2}
	bare := &vertexRun{dag: &dagRun{}}
	for _, c := range []struct {
		name     string
		v        *vertexRun
		fallback time.Duration
		want     time.Duration
		ok       bool
	}{
		{"vertex", v, 40 * time.Second, 30 * time.Second, true},
		{"dag", &vertexRun{dag: d}, 40 * time.Second, 25 * time.Second, true},
		{"group", bare, 40 * time.Second, 40 * time.Second, true},
		{"none", bare, 0, 0, false},
	} {
		if got, ok := estimate(c.v, c.fallback); got != c.want || ok != c.ok {
			t.Errorf("%s: estimate = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
