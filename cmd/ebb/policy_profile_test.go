package main

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/sim"
)

// examples/ebb-policy/mr3-site.xml is the sim's ebb policy as an AM
// configuration: loaded as `ebb submit --conf` loads it, it gives the
// Core the options sim.ParsePolicy("ebb") gives it, but for the boot time
// and billing period, which the sim takes from its cloud (the example sets
// the per-second cloud's 180 s boot).
func TestEbbPolicyProfileMatchesTheSim(t *testing.T) {
	c, warns, err := conf.Load(conf.LoadOptions{ConfPath: filepath.Join("..", "..", "examples", "ebb-policy"),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Fatalf("warnings: %v", warns)
	}
	am, err := amconf.CoreOptions(c, "t")
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.ParsePolicy("ebb")
	if err != nil {
		t.Fatal(err)
	}
	want := p.Core
	want.Autoscale.BootTime = 180 * time.Second // the sim: from its cloud
	if am.Scaling != want.Scaling {
		t.Errorf("scaling %v, the sim's ebb %v", am.Scaling, want.Scaling)
	}
	if !reflect.DeepEqual(am.Autoscale, want.Autoscale) {
		t.Errorf("autoscaler\n the profile %+v\n the sim     %+v", am.Autoscale, want.Autoscale)
	}
	if am.Tasks.Name() != want.Tasks.Name() || am.ReservePercent != want.ReservePercent {
		t.Errorf("task order %s with reserve %d%%, the sim's ebb %s with %d%%", am.Tasks.Name(), am.ReservePercent,
			want.Tasks.Name(), want.ReservePercent)
	}
	if am.IdleTimeout != want.IdleTimeout {
		t.Errorf("idle timeout %s, the sim's ebb %s", am.IdleTimeout, want.IdleTimeout)
	}
	if got := c.String("ebb.packing.scheme"); got != p.Packing {
		t.Errorf("packing %s, the sim's ebb %s", got, p.Packing)
	}
	if hi, n := c.Int("ebb.packing.high.threshold.percent"), c.Int("ebb.packing.min.nodes"); hi != p.HighThreshold || n != p.MinNodes {
		t.Errorf("packing thresholds %d%%/%d nodes, the sim's ebb %d%%/%d", hi, n, p.HighThreshold, p.MinNodes)
	}
}
