package core

import (
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// The thresholds retuned at run time (AutoscaleSet) address groups as
// the latency target does (forGroups): a name no group has is refused,
// a group's own thresholds leave the others alone, and "" sets every
// group and the groups created after.
func TestCoreSetsTheThresholdsAtRunTime(t *testing.T) {
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: scheduler.DefaultAutoscaleConfig(), IdleTimeout: time.Hour})
	f.submit(twoStages)
	f.addWorker("w1", "g", "n1", 1024)
	f.tick(time.Second)
	out := func(name string) int {
		g, ok := f.c.groups[name]
		if !ok || g.as == nil {
			t.Fatalf("group %s has no autoscaler", name)
		}
		return g.as.a.Config().OutThresholdPercent
	}
	r := f.c.Apply(f.now, AutoscaleSet{Group: "nope", OutPercent: 90, InPercent: 40, MinHosts: 1})
	if r.Err == nil || !strings.Contains(r.Err.Error(), `no ContainerGroup "nope"`) {
		t.Fatalf("thresholds for an unknown group: %v, want no ContainerGroup \"nope\"", r.Err)
	}
	if r := f.c.Apply(f.now, AutoscaleSet{Group: "g", OutPercent: 90, InPercent: 40, MinHosts: 1}); r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := out("g"); got != 90 {
		t.Fatalf("out threshold %d after setting g's to 90", got)
	}
	if f.c.opts.Autoscale.OutThresholdPercent == 90 {
		t.Fatal("one group's thresholds became every later group's")
	}
	if r := f.c.Apply(f.now, AutoscaleSet{OutPercent: 70, InPercent: 30, MinHosts: 1}); r.Err != nil {
		t.Fatal(r.Err)
	}
	f.addGroupH()
	if g, h := out("g"), out("h"); g != 70 || h != 70 {
		t.Fatalf("out thresholds g %d, h %d after setting every group's to 70, want 70 (h created after)", g, h)
	}
}
