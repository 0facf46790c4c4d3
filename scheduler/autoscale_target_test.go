package scheduler

import (
	"testing"
	"time"
)

// The horizon is (T − 1) × 120 s before any DAG is measured; DAGs that
// miss the target shorten it (more workers for the same work in sight),
// DAGs that meet it lengthen it, and at the tracker's miss rate (4 in
// 100) it stays where it is.
func TestTargetFeedback(t *testing.T) {
	newAS := func(target float64) *Autoscaler {
		c := DefaultAutoscaleConfig()
		c.Predictive, c.BootTime, c.TargetSlowdown = true, 180*time.Second, target
		a, err := NewAutoscaler("g", c)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		target float64
		want   time.Duration
	}{{2, 120 * time.Second}, {3, 240 * time.Second}, {1.5, 60 * time.Second}, {1, 10 * time.Second}} {
		if got := newAS(tc.target).horizon(); got != tc.want {
			t.Errorf("target %v: horizon %v before any DAG, want %v", tc.target, got, tc.want)
		}
	}

	snap := GroupSnapshot{Workers: 4, QueuedAttempts: 100, WorkerMB: 1000, QueuedWork: 2e6}
	a := newAS(2)
	before, _ := a.workNeed(snap)
	for range 20 {
		a.ObserveDAG(30*time.Second, 10*time.Second) // slowdown 3 > 2: a miss
	}
	if h := a.horizon(); h >= 120*time.Second {
		t.Fatalf("horizon %v after 20 misses, want below 120s", h)
	}
	after, _ := a.workNeed(snap)
	if after <= before {
		t.Errorf("work need %d after 20 misses, want more than %d", after, before)
	}
	if p, n := a.MeasuredP95(); p != 3 || n != 20 {
		t.Errorf("MeasuredP95 = %v over %d, want 3 over 20", p, n)
	}

	b := newAS(2)
	for range 100 {
		b.ObserveDAG(15*time.Second, 10*time.Second) // 1.5: a hit
	}
	if h := b.horizon(); h <= 120*time.Second {
		t.Errorf("horizon %v after 100 hits, want above 120s", h)
	}

	c := newAS(2)
	for i := range 2000 {
		took := 15 * time.Second
		if i%25 == 0 {
			took = 30 * time.Second
		}
		c.ObserveDAG(took, 10*time.Second)
	}
	if h := c.horizon(); h < 100*time.Second || h > 145*time.Second {
		t.Errorf("horizon %v at a 4%% miss rate, want about 120s", h)
	}
	if _, n := c.MeasuredP95(); n != recentDAGs {
		t.Errorf("MeasuredP95 over %d DAGs, want the latest %d", n, recentDAGs)
	}
}
