package cloud

import (
	"fmt"
	"time"
)

// billed is how long a node that existed for life is charged for: per
// started second (at least MinBilled), or per started period (at least
// one: a launched node always pays its first period).
func (c Config) billed(life time.Duration) time.Duration {
	if p := c.BillingPeriod; p > 0 {
		periods := max(1, ceilDiv(life, p))
		return time.Duration(periods) * p
	}
	return max(time.Duration(ceilDiv(life, time.Second))*time.Second, c.MinBilled)
}

func ceilDiv(a, b time.Duration) int64 {
	if a <= 0 {
		return 0
	}
	return int64((a + b - 1) / b)
}

// PaidUntil is when the time already paid for node id runs out, as seen
// at now: the end of its current billing period (of the last one, once
// released). Billing-aware scale-in keeps an idle node until then.
func (c *Cloud) PaidUntil(id string, now time.Time) (time.Time, error) {
	n, ok := c.Node(id)
	if !ok {
		return time.Time{}, fmt.Errorf("%w %q", ErrUnknownNode, id)
	}
	return n.Requested.Add(c.cfg.billed(n.end(now).Sub(n.Requested))), nil
}

// Cost is what every node has cost up to now, in the price's currency.
func (c *Cloud) Cost(now time.Time) float64 {
	var cost float64
	for _, n := range c.nodes {
		if now.Before(n.Requested) {
			continue
		}
		cost += c.cfg.billed(n.end(now).Sub(n.Requested)).Seconds() / 3600 * n.Type.PricePerHour
	}
	return cost
}

// PaidSeconds is the seconds every node has been billed for up to now:
// its life rounded up to a started second (at least MinBilled) or to a
// started billing period. Cost is PaidSeconds priced per node type.
func (c *Cloud) PaidSeconds(now time.Time) float64 {
	var s float64
	for _, n := range c.nodes {
		if now.Before(n.Requested) {
			continue
		}
		s += c.cfg.billed(n.end(now).Sub(n.Requested)).Seconds()
	}
	return s
}

// Billed is how long a node that lived for life is paid for under c.
func (c Config) Billed(life time.Duration) time.Duration { return c.billed(life) }

// NodeSeconds is the seconds every node existed up to now, from its
// request to its release (or now), unrounded by billing.
func (c *Cloud) NodeSeconds(now time.Time) float64 {
	var s float64
	for _, n := range c.nodes {
		s += n.end(now).Sub(n.Requested).Seconds()
	}
	return s
}

// MBSeconds is NodeSeconds weighted by each node's memory: the capacity
// the lower bound of a report is measured against.
func (c *Cloud) MBSeconds(now time.Time) float64 {
	var s float64
	for _, n := range c.nodes {
		s += n.end(now).Sub(n.Requested).Seconds() * float64(n.Type.MemoryMB)
	}
	return s
}
