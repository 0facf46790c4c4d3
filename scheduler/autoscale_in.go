package scheduler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// inCandidate is a node that a scale-in may empty, with the figures its
// order depends on.
type inCandidate struct {
	NodeLoad
	dueIn int64 // whole intervals until its paid period ends (billing only)
}

// chooseNodes picks the nodes a scale-in empties, or none with the reason.
//
// Floor: MinHosts nodes remain, and at least one if attempts are queued
// (they need somewhere to run). Order: the least running memory, then the
// fewest running attempts, then the fewest outputs running DAGs still
// need (each takes longer to drain), then the ID so that ties replay.
//
// With a billing period (ebb.billing.period.secs > 0) the hour is already
// paid (autoscale_billing.go): no node is emptied while attempts are
// queued (the paid capacity is free for them), and only nodes near the
// end of their paid period are candidates: an idle node within two
// sampling intervals of it (so that one step is sure to see it before it
// renews), a busy one within two intervals plus the scale-in grace period
// (its attempts must end first). A node far from its boundary, busy or
// idle, is never drained: emptying it saves nothing this period and
// leaves paid capacity unused. The candidates are ordered first by the
// whole intervals left in their paid period, so a node about to renew
// goes before one with time left; the order above breaks ties. A node
// with an unknown paid period counts as due now.
//
// How many: mr3.auto.scale.in.num.decrement.hosts, or when it is 0 the
// most nodes (in order, at least one) whose removal keeps the projected
// usage, running MB / MB offered by the nodes left, at or below the
// scale-in threshold; running MB is as in scaleOutCount.
//
// all (boundaryScaleIn): every candidate may go, as far as the work in
// sight allows, instead of the decrement.
func (a *Autoscaler) chooseNodes(now time.Time, s GroupSnapshot, all bool) ([]string, string) {
	keep := a.cfg.MinHosts
	if s.QueuedAttempts > 0 {
		keep = max(keep, 1)
	}
	room := len(s.Nodes) - keep
	if room <= 0 {
		return nil, fmt.Sprintf("queued attempts (%d) need one node to remain", s.QueuedAttempts)
	}

	billing := a.cfg.BillingPeriod > 0
	_, workOK := a.workNeed(s)
	if billing && s.QueuedAttempts > 0 && !workOK {
		return nil, fmt.Sprintf("%d attempts queued: paid nodes are kept for them", s.QueuedAttempts)
	}
	margin := 2 * a.cfg.Interval
	cands := make([]inCandidate, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		c := inCandidate{NodeLoad: n}
		if billing && !n.PaidUntil.IsZero() {
			busy := n.RunningAttempts > 0 || n.RunningMB > 0
			drain := a.cfg.InGracePeriod
			if n.Remaining > 0 {
				drain = n.Remaining
			}
			if !nearBoundary(now, n.PaidUntil, busy, margin, drain) {
				continue
			}
			left := max(n.PaidUntil.Sub(now), 0)
			c.dueIn = int64((left + a.cfg.Interval - 1) / a.cfg.Interval)
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return nil, fmt.Sprintf("no node is within %ss (idle) or %ss (busy) of the end of its paid period",
			secs(margin), secs(margin+a.cfg.InGracePeriod))
	}
	slices.SortFunc(cands, func(x, y inCandidate) int {
		return cmp.Or(
			cmp.Compare(x.dueIn, y.dueIn),
			cmp.Compare(x.RunningMB, y.RunningMB),
			cmp.Compare(x.RunningAttempts, y.RunningAttempts),
			cmp.Compare(x.NeededOutputs, y.NeededOutputs),
			cmp.Compare(x.ID, y.ID))
	})

	k := a.cfg.DecrementHosts
	switch {
	case all:
		k = len(cands)
	case k == 0:
		k = a.computedDecrement(s, cands)
	}
	k = min(k, room, len(cands))
	if k = a.keepForHeadroom(s, cands[:k]); k == 0 {
		return nil, fmt.Sprintf("the headroom for the last %ss' peak demand needs %d %s",
			secs(a.cfg.HeadroomWindow), a.headroomWorkers(s.WorkerMB), plural(a.headroomWorkers(s.WorkerMB), "worker"))
	}
	if billing && workOK {
		k = a.keepForWork(s, cands[:k])
		if k == 0 {
			return nil, fmt.Sprintf("the work in sight (%s MB·s) needs every node near its boundary",
				mbsText(s.QueuedWork+s.RunningWork+s.WaitingWork))
		}
	}
	ids := make([]string, k)
	for i := range k {
		ids[i] = cands[i].ID
	}
	return ids, ""
}

// computedDecrement is how many of cands, in order, can go while the
// projected usage stays at or below the scale-in threshold; at least one.
func (a *Autoscaler) computedDecrement(s GroupSnapshot, cands []inCandidate) int {
	mb := func(workers int) float64 { return float64(workers) * float64(max(s.WorkerMB, 1)) }
	var offered float64
	for _, n := range s.Nodes {
		offered += mb(n.Workers)
	}
	running := max(float64(s.runningMB()), a.usage/100*offered)
	limit := float64(a.cfg.InThresholdPercent) / 100
	left := offered - mb(cands[0].Workers)
	k := 1
	for k < len(cands) {
		next := left - mb(cands[k].Workers)
		if projected(running, next) > limit {
			break
		}
		left = next
		k++
	}
	return k
}

// projected is the usage of the memory left; with nothing left it is 0
// when nothing runs and unbounded otherwise.
func projected(running, offered float64) float64 {
	if offered <= 0 {
		if running <= 0 {
			return 0
		}
		return math.Inf(1)
	}
	return running / offered
}
