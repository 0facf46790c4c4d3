package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// Every knob reaches the field it names; a key that means nothing for a
// policy leaves it alone; bad keys and values are errors naming them.
func TestPolicyKnobs(t *testing.T) {
	p, _ := ParsePolicy("ebb")
	for k, v := range map[string]string{
		"mr3.auto.scale.in.threshold.percent":          "30",
		"mr3.auto.scale.in.delay.after.scale.out.secs": "180",
		"mr3.container.idle.timeout.ms":                "90000",
		"ebb.packing.scheme":                           "uniform",
		KeyBillingAware:                                "false",
	} {
		if ok, err := p.Set(k, v); !ok || err != nil {
			t.Errorf("ebb: set %s=%s: %v, %v", k, v, ok, err)
		}
	}
	a := p.Core.Autoscale
	if a.InThresholdPercent != 30 || a.InDelayAfterScaleOut != 180*time.Second || p.Core.IdleTimeout != 90*time.Second ||
		p.Packing != "uniform" || p.BillingAware != "false" {
		t.Errorf("ebb after Set: %+v", p)
	}
	s, _ := ParsePolicy("spark-da")
	if ok, err := s.Set("mr3.auto.scale.in.threshold.percent", "30"); ok || err != nil {
		t.Errorf("spark-da has no autoscaler: applied %v, %v", ok, err)
	}
	if _, err := p.Set("mr3.auto.scale.nope", "1"); err == nil || !strings.Contains(err.Error(), `unknown policy key "mr3.auto.scale.nope"`) {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := p.Set("mr3.auto.scale.in.min.hosts", "-1"); err == nil || !strings.Contains(err.Error(), `mr3.auto.scale.in.min.hosts = "-1"`) {
		t.Errorf("bad value: %v", err)
	}
	if _, err := ParsePolicy("oracle"); err != nil {
		t.Error(err)
	}
}

// ebb's defaults in the sim: billing-aware exactly when the cloud bills per
// period, its boot time the cloud's; other policies only when asked.
func TestEbbBillingAndBootDefaults(t *testing.T) {
	perSecond, hourly := testConfig(), testConfig()
	hourly.Cloud.BillingPeriod = time.Hour
	e, _ := ParsePolicy("ebb")
	s, _ := ParsePolicy("spark-da")
	if !billingAware(e, hourly) || billingAware(e, perSecond) || billingAware(s, hourly) {
		t.Errorf("billing-aware: ebb hourly %v, ebb per second %v, spark-da hourly %v; want true, false, false",
			billingAware(e, hourly), billingAware(e, perSecond), billingAware(s, hourly))
	}
	if _, err := s.Set(KeyBillingAware, "true"); err != nil || !billingAware(s, hourly) {
		t.Errorf("spark-da with %s=true: %v", KeyBillingAware, err)
	}
	if !e.BootFromCloud {
		t.Error("ebb's boot time should come from the cloud")
	}
	if _, err := e.Set("ebb.auto.scale.node.boot.secs", "0"); err != nil || e.BootFromCloud || e.Core.Autoscale.BootTime != 0 {
		t.Errorf("boot 0 should switch the hysteresis off: %v, %+v", err, e)
	}
}

// The latency target reaches ebb's autoscaler and means nothing to mr3's
// (no work-in-sight sizing), so a sweep of it replays mr3 once.
func TestTargetKnobAppliesToEbbOnly(t *testing.T) {
	e, _ := ParsePolicy("ebb")
	if ok, err := e.Set(scheduler.KeyTargetSlowdown, "1.5"); !ok || err != nil || e.Core.Autoscale.TargetSlowdown != 1.5 {
		t.Errorf("ebb: applied %v, err %v, target %v; want 1.5", ok, err, e.Core.Autoscale.TargetSlowdown)
	}
	m, _ := ParsePolicy("mr3")
	if ok, err := m.Set(scheduler.KeyTargetSlowdown, "1.5"); ok || err != nil {
		t.Errorf("mr3: applied %v, err %v; want not applied", ok, err)
	}
	if _, err := e.Set(scheduler.KeyTargetSlowdown, "0.9"); err == nil || !strings.Contains(err.Error(), "from 1 to 1000") {
		t.Errorf("target 0.9: err %v, want one naming the range", err)
	}
}
