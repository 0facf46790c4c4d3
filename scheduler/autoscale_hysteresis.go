package scheduler

import (
	"fmt"
	"time"
)

// Hysteresis against churn, in proportion to the boot time
// (ebb.auto.scale.node.boot.secs). A node emptied now and wanted again
// later costs a boot: BootTime paid before it runs anything. Keeping an
// under-used node for as long as a boot costs the same (the ski-rental
// argument: rent for as long as buying would cost, then buy), so a
// scale-in waits until the usage has stayed at or below the threshold for
// BootTime, and for at least BootTime after a scale-out. With BootTime 0
// the autoscaler behaves as before: only the delay after scale-out
// applies.

// trackLow notes when the usage went to or below the scale-in threshold.
func (a *Autoscaler) trackLow(now time.Time) {
	if !a.usageOK || a.usage > float64(a.cfg.InThresholdPercent) {
		a.lowSince = time.Time{}
		return
	}
	if a.lowSince.IsZero() {
		a.lowSince = now
	}
}

// inDelay is the wait after a scale-out before a scale-in: the key, or
// the boot time when longer.
func (a *Autoscaler) inDelay() time.Duration { return max(a.cfg.InDelayAfterScaleOut, a.cfg.BootTime) }

// tooSoonLow says why a scale-in must wait for the usage to stay low, or
// "" when it need not.
func (a *Autoscaler) tooSoonLow(now time.Time) string {
	boot := a.cfg.BootTime
	if boot <= 0 {
		return ""
	}
	if low := now.Sub(a.lowSince); low < boot {
		return fmt.Sprintf("low for only %ss (hysteresis: a node boots in %ss)", secs(low), secs(boot))
	}
	return ""
}
