package sim

import (
	"testing"
	"time"
)

// vCores bind before memory: a 10,000 MB, 8 vcore node (1250 MB a vcore)
// and a 10,000 MB worker; sixteen 500 MB, 1 vcore tasks of 60 s. Memory
// alone would run all 16 at once (16 × 500 = 8000 MB) and end at 60 s;
// each task reserves max(500, 1 × 1250) = 1250 MB, so 8 run at a time and
// the job ends after two waves, at 120 s. The lower bound counts the
// reservations: 16 × 1250 MB × 60 s.
func TestVCoresEnforced(t *testing.T) {
	j := job("v", 0, 16, 500, 60*time.Second, 10000)
	j.Spec.Vertices[0].VCores = 1
	r := runOne(t, []Job{j}, "static-1")
	if got := r.Jobs[0].JCT(); got != 120*time.Second {
		t.Errorf("JCT %s, want 120s (two waves of 8 one-vcore tasks on an 8 vcore node)", got)
	}
	if r.TaskMBSeconds != 16*1250*60 {
		t.Errorf("task MB-seconds %.0f, want %d", r.TaskMBSeconds, 16*1250*60)
	}
	// A 4 vcore task on the same node reserves half of it (5000 MB) even
	// though it asks for 100 MB; one of 20 vcores is capped at the node.
	cfg := testConfig()
	for _, c := range []struct {
		vcores int
		mb     int64
		want   int64
	}{{4, 100, 5000}, {20, 100, 10000}, {1, 3000, 3000}, {0, 100, 1250}} {
		v := j.Spec.Vertices[0]
		v.VCores, v.MemoryMB = c.vcores, c.mb
		if got := cfg.reservedMB(v); got != c.want {
			t.Errorf("%d vcores, %d MB: reserves %d MB, want %d", c.vcores, c.mb, got, c.want)
		}
	}
	// ras and fair-slots decide concurrency themselves: memory as given.
	ras, _ := ParsePolicy("ras")
	v := j.Spec.Vertices[0]
	v.VCores, v.MemoryMB = 4, 100
	if got := ras.reservedMB(cfg, v); got != 100 {
		t.Errorf("ras: a 4 vcore, 100 MB task reserves %d MB, want 100", got)
	}
}
