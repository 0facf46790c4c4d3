package amconf

import (
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/scheduler"
)

// mr3.container.idle.timeout.ms=0 reaches the core as 0 (released at the
// first idle tick, as the key's doc says; core's
// TestIdleTimeoutZeroReleasesAtOnce shows the release), not as the five
// minutes the core used to fill in.
func TestIdleTimeoutZeroReachesTheCore(t *testing.T) {
	c := conf.Defaults()
	if err := c.Set("mr3.container.idle.timeout.ms", "0"); err != nil {
		t.Fatal(err)
	}
	o, err := CoreOptions(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.IdleTimeout != 0 {
		t.Fatalf("IdleTimeout = %s from mr3.container.idle.timeout.ms=0, want 0", o.IdleTimeout)
	}
	if _, err := core.NewCore(o); err != nil {
		t.Fatalf("the core refuses what the key table accepts: %v", err)
	}
}

// The table's defaults make options the core accepts, and the autoscaler's
// own defaults (which the scheduler's tests use) are the table's.
func TestDefaults(t *testing.T) {
	d := Defaults()
	if _, err := core.NewCore(d); err != nil {
		t.Fatal(err)
	}
	if d.IdleTimeout != 5*time.Minute || d.MaxConcurrentDAGs != 128 {
		t.Errorf("Defaults: idle %s, concurrent DAGs %d; the key table says 300000 ms and 128", d.IdleTimeout, d.MaxConcurrentDAGs)
	}
	if s := scheduler.DefaultAutoscaleConfig(); !reflect.DeepEqual(s, d.Autoscale) {
		t.Errorf("scheduler.DefaultAutoscaleConfig()\n%+v\ndiffers from the key table's\n%+v", s, d.Autoscale)
	}
}
