package core

import (
	"errors"

	"github.com/ebb-am/ebb/scheduler"
)

// The latency target at run time (`ebb autoscale --target`): the core
// hears it as an event, like the thresholds, and hands it to the
// autoscalers it names. Nothing here is recovered: a new AM attempt reads
// ebb.auto.scale.target.p95.slowdown from its configuration again, as it
// does the thresholds (docs/autoscaling-target.md).

// ErrTargetUnused: the AM does not size its groups from the work in
// sight, so a latency target would change nothing; it is refused rather
// than accepted and ignored.
var ErrTargetUnused = errors.New("the latency target is read only with mr3.enable.auto.scaling=true, ebb.auto.scale.predictive.enabled=true and ebb.auto.scale.node.boot.secs > 0")

// SetTarget sets the latency target of one group's autoscaler ("" = every
// group, and the groups created later). The value is checked against the
// key's range before any group takes it, so a bad one changes nothing.
func (c *Core) SetTarget(group string, p95Slowdown float64) error {
	if !c.targetUsed() {
		return ErrTargetUnused
	}
	cfg := c.opts.Autoscale
	cfg.TargetSlowdown = p95Slowdown
	if err := cfg.Validate(); err != nil {
		return err
	}
	err := c.forGroups(group, func(a *scheduler.Autoscaler) error {
		return a.SetTarget(p95Slowdown)
	})
	if err != nil {
		return err
	}
	if group == "" {
		c.opts.Autoscale.TargetSlowdown = p95Slowdown
		c.logf("every group: latency target set to p95 %g", p95Slowdown)
		return nil
	}
	c.logf("group %s: latency target set to p95 %g", group, p95Slowdown)
	return nil
}

// targetUsed: the groups are sized from the work in sight, the only
// sizing the target acts on (scheduler's workKnown).
func (c *Core) targetUsed() bool {
	a := c.opts.Autoscale
	return c.opts.Scaling == ScaleAutoscaler && a.Predictive && a.BootTime > 0
}
