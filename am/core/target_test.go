package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// The latency target retuned at run time (AutoscaleTargetSet): a value
// outside the key's range changes nothing and says the value and the
// range in one line; a group's own target leaves the others alone; ""
// sets every group and the groups created after; an AM that does not
// size from the work in sight refuses it; the groups' status shows the
// target and what has been measured.
func TestCoreSetsTheTargetAtRunTime(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	cfg.Predictive, cfg.BootTime = true, time.Minute
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, IdleTimeout: time.Hour})
	f.submit(twoStages)
	f.addWorker("w1", "g", "n1", 1024)
	f.tick(time.Second)
	target := func(name string) float64 {
		for _, g := range f.c.Groups() {
			if g.Name == name {
				return g.TargetP95
			}
		}
		t.Fatalf("no group %s in %+v", name, f.c.Groups())
		return 0
	}
	if got := target("g"); got != 2 {
		t.Fatalf("target %v before any change, want the key's 2", got)
	}
	r := f.c.Apply(f.now, AutoscaleTargetSet{Group: "g", P95Slowdown: 0.5})
	if r.Err == nil || strings.Contains(r.Err.Error(), "\n") ||
		!strings.Contains(r.Err.Error(), "ebb.auto.scale.target.p95.slowdown = 0.5: must be from 1 to 1000") {
		t.Fatalf("target 0.5: %v; want one line naming the key, the value and the range", r.Err)
	}
	if got := target("g"); got != 2 {
		t.Fatalf("target %v after a refused change, want 2", got)
	}
	if r := f.c.Apply(f.now, AutoscaleTargetSet{Group: "nope", P95Slowdown: 3}); r.Err == nil {
		t.Fatal("a target for an unknown group was accepted")
	}
	if r := f.c.Apply(f.now, AutoscaleTargetSet{Group: "g", P95Slowdown: 1.5}); r.Err != nil {
		t.Fatal(r.Err)
	}
	if got, cfg := target("g"), f.c.groups["g"].as.a.Config(); got != 1.5 || cfg.TargetSlowdown != 1.5 {
		t.Fatalf("status %v, autoscaler %v after setting 1.5", got, cfg.TargetSlowdown)
	}
	if r := f.c.Apply(f.now, AutoscaleTargetSet{P95Slowdown: 3}); r.Err != nil {
		t.Fatal(r.Err)
	}
	f.addGroupH()
	if g, h := target("g"), target("h"); g != 3 || h != 3 {
		t.Fatalf("targets g %v, h %v after setting every group's to 3, want 3 (h created after)", g, h)
	}

	off := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: scheduler.DefaultAutoscaleConfig(), IdleTimeout: time.Hour})
	off.submit(twoStages)
	off.addWorker("w1", "g", "n1", 1024)
	off.tick(time.Second)
	if r := off.c.Apply(off.now, AutoscaleTargetSet{P95Slowdown: 3}); !errors.Is(r.Err, ErrTargetUnused) {
		t.Fatalf("without predictive scale-out: %v, want ErrTargetUnused", r.Err)
	}
	if got := off.c.Groups()[0].TargetP95; got != 0 {
		t.Fatalf("status shows target %v where nothing reads it, want 0", got)
	}
}

// addGroupH submits twoStages again in a group h, created after the run
// time's changes, with a worker on a node of its own: what a change made
// for every group ("") must reach.
func (f *fakeWorld) addGroupH() {
	f.submit(strings.ReplaceAll(twoStages, "name: g,", "name: h,"))
	f.addWorker("w2", "h", "n2", 1024)
	f.tick(time.Second)
}
