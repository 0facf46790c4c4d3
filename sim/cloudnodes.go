package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// errAtCap: the cloud has MaxNodes nodes already.
var errAtCap = errors.New("the cloud is at its node cap")

// cloudAdapter is the engine's view of the virtual cloud's bookkeeping:
// which nodes exist, since when, and what they cost. A node is paid from
// the moment it is requested (clouds bill from launch), per second or per
// started billing period.
type cloudAdapter struct {
	cfg           Config
	next          int
	lastProvision time.Time
	nodes         map[string]*billedNode
	order         []string
}

type billedNode struct {
	from, to time.Time // to is zero while the node exists
}

func newCloudAdapter(cfg Config, _ Policy, start time.Time) (*cloudAdapter, error) {
	if cfg.NodeMB <= 0 {
		return nil, fmt.Errorf("sim: node memory must be positive, got %d MB", cfg.NodeMB)
	}
	return &cloudAdapter{cfg: cfg, nodes: map[string]*billedNode{}, lastProvision: start.Add(-24 * time.Hour)}, nil
}

func (c *cloudAdapter) live() int {
	k := 0
	for _, n := range c.nodes {
		if n.to.IsZero() {
			k++
		}
	}
	return k
}

func (c *cloudAdapter) provision(now time.Time) (string, time.Time, error) {
	if c.cfg.MaxNodes > 0 && c.live() >= c.cfg.MaxNodes {
		return "", time.Time{}, errAtCap
	}
	c.next++
	id := fmt.Sprintf("node%05d", c.next)
	c.nodes[id] = &billedNode{from: now}
	c.order = append(c.order, id)
	c.lastProvision = now
	return id, now.Add(c.cfg.ProvisionDelay), nil
}

func (c *cloudAdapter) release(now time.Time, id string) {
	if n, ok := c.nodes[id]; ok && n.to.IsZero() {
		n.to = now
	}
}

// paidUntil is when a node's current billing period ends.
func (c *cloudAdapter) paidUntil(id string, now time.Time) time.Time {
	n, ok := c.nodes[id]
	if !ok || c.cfg.BillingPeriod <= 0 {
		return now
	}
	periods := math.Ceil(now.Sub(n.from).Seconds() / c.cfg.BillingPeriod.Seconds())
	return n.from.Add(time.Duration(max(periods, 1)) * c.cfg.BillingPeriod)
}

// totals: node-seconds the nodes existed and what was paid, up to end.
func (c *cloudAdapter) totals(end time.Time) (nodeSeconds, cost float64) {
	for _, id := range c.order {
		n := c.nodes[id]
		to := n.to
		if to.IsZero() {
			to = end
		}
		secs := to.Sub(n.from).Seconds()
		nodeSeconds += secs
		billed := secs
		if p := c.cfg.BillingPeriod.Seconds(); p > 0 {
			billed = math.Max(1, math.Ceil(secs/p)) * p
		}
		cost += billed / 3600 * c.cfg.PricePerHour
	}
	return
}
