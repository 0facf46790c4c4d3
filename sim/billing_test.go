package sim

import (
	"testing"
	"time"
)

// A lull near a paid-hour boundary, hourly billing, spark-da's ramp (as in
// TestBurstExactNodeSeconds: the first worker is asked for 1 s after a job
// arrives). testConfig: 100 s to provision, 10 s reclaim, 1 s tick. Three
// jobs of one 8000 MB task of 100 s, one worker (8000 MB) per node:
// a at 0, b at 1000, c at 3700.
//
// Billing-aware: a's node is requested at 1 (paid until 3601), ready at
// 101; a runs 101..201; the idle worker leaves at 261 but the empty node
// is kept, so b's worker (asked at 1001) starts on it at once: b runs
// 1001..1101. Two ticks before the paid hour ends (3599) the node is
// empty and nothing is queued, so it goes: 3598 s, one hour paid. c needs
// a new node: asked at 3701, ready 3801, c runs 3801..3901 (200 s, one
// hour). 3798 node-seconds, 7200 paid; b's JCT 101 s.
//
// Without it every empty node goes 10 s after its worker leaves (60 s
// idle): a's node lives 1..271 (270 s); b's is asked for at 1001, ready
// at 1101, b runs 1101..1201 and the node goes at 1271 (270 s); c's lives
// 3701..3901 (200 s, the run ends): 740 node-seconds but three hours paid
// (10800); b's JCT 201 s.
func TestBillingAwareLullNearBoundary(t *testing.T) {
	jobs := []Job{
		job("a", 0, 1, 8000, 100*time.Second, 8000),
		job("b", 1000*time.Second, 1, 8000, 100*time.Second, 8000),
		job("c", 3700*time.Second, 1, 8000, 100*time.Second, 8000),
	}
	cfg := testConfig()
	cfg.Cloud.BillingPeriod = time.Hour
	for _, c := range []struct {
		aware            string
		nodeSecs, paid   float64
		bJCT, lastFinish time.Duration
	}{
		{"true", 3798, 7200, 101 * time.Second, 3901 * time.Second},
		{"false", 740, 10800, 201 * time.Second, 3901 * time.Second},
	} {
		p, err := ParsePolicy("spark-da")
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := p.Set(KeyBillingAware, c.aware); !ok || err != nil {
			t.Fatalf("set %s: %v, %v", KeyBillingAware, ok, err)
		}
		rec, err := Run(jobs, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		r := rec.Run()
		if r.NodeSeconds != c.nodeSecs || r.PaidSeconds != c.paid {
			t.Errorf("aware=%s: node-seconds %.0f, paid %.0f; want %.0f, %.0f", c.aware, r.NodeSeconds, r.PaidSeconds, c.nodeSecs, c.paid)
		}
		for _, j := range r.Jobs {
			if j.ID == "b" && j.JCT() != c.bJCT {
				t.Errorf("aware=%s: b's JCT %s, want %s", c.aware, j.JCT(), c.bJCT)
			}
			if j.ID == "c" && j.Finish != c.lastFinish {
				t.Errorf("aware=%s: c ends at %s, want %s", c.aware, j.Finish, c.lastFinish)
			}
		}
	}
}
