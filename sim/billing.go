package sim

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/scheduler"
)

// billingAware says whether the run uses billing-aware node handling: the
// policy asks for it (sim.billing.aware true, or auto and the cloud bills
// per period).
func billingAware(p Policy, cfg Config) bool {
	switch p.BillingAware {
	case "true":
		return cfg.Cloud.BillingPeriod > 0
	case "auto":
		return cfg.Cloud.BillingPeriod > 0 && p.Name == "ebb"
	}
	return false
}

func (e *engine) billingAware() bool { return billingAware(e.policy, e.cfg) }

// billingRelease gives back empty nodes whose paid period is about to end
// and that no queued work needs (scheduler.KeepEmptyNode). The margin is
// two ticks, so that a tick is sure to see a node before it renews.
func (w *world) billingRelease(now time.Time) {
	margin := 2 * w.e.cfg.Tick
	needed, known := false, false
	for _, n := range w.m.Nodes() {
		if !n.Ready || len(n.Workers) > 0 {
			continue
		}
		paid, err := w.e.cloud.PaidUntil(n.ID, now)
		if err != nil {
			continue // the cloud knows every node the model has
		}
		if paid.Sub(now) <= margin && !known {
			needed, known = w.queued(), true
		}
		if scheduler.KeepEmptyNode(now, paid, margin, needed) {
			continue
		}
		evs, _ := w.m.Remove(now, n.ID) // empty and known: it cannot fail
		w.apply(now, evs)
	}
}

// queued says whether any group's queued work needs more workers (for an
// autoscaled group, as its estimate of the work in sight says).
func (w *world) queued() bool {
	for _, g := range w.e.core.Groups() {
		if g.NeedsWorkers {
			return true
		}
	}
	return false
}

// bill tells the core when each node holding workers has its paid period
// end at now, as the virtual cloud bills it: data the core's
// billing-aware scale-in reads in the tick that follows.
func (e *engine) bill(now time.Time) {
	paid := map[string]time.Time{}
	e.core.EachNodeID(func(id string) {
		if t, err := e.cloud.PaidUntil(id, now); err == nil {
			paid[id] = t
		}
	})
	e.core.Apply(now, core.NodesBilled{PaidUntil: paid})
}
