package core

import "time"

// Paid periods on a world that cannot say when a node's billing started
// (YARN, local): the Core takes the first time a node held a worker of
// this AM, less CoreOptions.BillingStartOffset, as the start of its first
// paid period, and periods of ebb.billing.period.secs follow back to back.
// The AM cannot know what the cloud charges; this is the best evidence it
// has, and the offset corrects it where the cloud starts the meter earlier
// (typically at the node's request, a boot time before it registers).

// noteNodeSeen records the first time a node held one of this AM's
// workers. It is kept after the node's last worker leaves: the node's
// billing does not restart when the AM stops using it.
func (c *Core) noteNodeSeen(node string) {
	if _, ok := c.firstSeen[node]; !ok {
		c.firstSeen[node] = c.now
	}
}

// nodePaidUntil is the end of the node's current paid period at now: as
// the world last reported it when it does (NodesBilled: the sim's cloud,
// before each tick), else the period counted from first sight. Zero means
// unknown (no billing period, or a node this AM never saw).
func (c *Core) nodePaidUntil(node string) time.Time {
	if c.paid != nil {
		return c.paid[node]
	}
	period := c.opts.Autoscale.BillingPeriod
	seen, ok := c.firstSeen[node]
	if period <= 0 || !ok {
		return time.Time{}
	}
	return PaidUntil(seen.Add(-c.opts.BillingStartOffset), period, c.now)
}

// PaidUntil is the end of the paid period that covers now, for a meter
// started at start and charging whole periods: a period that has begun is
// paid in full, and at an exact boundary the next one has begun.
func PaidUntil(start time.Time, period time.Duration, now time.Time) time.Time {
	if now.Before(start) {
		return start.Add(period)
	}
	n := now.Sub(start)/period + 1
	return start.Add(n * period)
}
