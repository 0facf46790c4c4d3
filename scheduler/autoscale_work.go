package scheduler

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Scaling from the work in sight (Qubole's 2012 design), with the boot
// time in the sum. The snapshot gives the work the queued attempts and
// the running ones' remainders hold, in MB·s, estimated per vertex
// (GroupSnapshot.QueuedWork, RunningWork). A worker offers WorkerMB, of
// which the out threshold is what packing can be expected to use, so
//
//	C = (Workers + PendingWorkers) × WorkerMB × out%      (MB, running now)
//	r = WorkerMB × out%                                    (one more worker)
//
// A new worker on a node the AM holds (RoomWorkers) starts at once; one
// that needs a new node starts after BootTime B. The group should finish
// its work in sight within B + T (T: the horizon, the wait accepted on top
// of a boot, derived from the latency target: autoscale_target.go), so
//
//	fast = ceil((W − C·T) / (r·T))               at most RoomWorkers, ≥ 0
//	boot = ceil((W − (C + fast·r)·(B + T)) / (r·T))                   ≥ 0
//
// and the need is fast + boot. A node that boots after the work it was
// asked for has drained costs a boot and a billing period and helps no
// one: with the boot time in the sum a burst of short tasks no longer
// buys nodes that arrive after it.

// workNeed is the workers the work in sight needs beyond those the group
// has and has asked for (fast + boot above). ok is false when it cannot
// say: no boot time, no work estimate, or queued work of unknown kinds.
func (a *Autoscaler) workNeed(s GroupSnapshot) (need int, ok bool) {
	if !a.workKnown(s) {
		return 0, false
	}
	w := s.QueuedWork + s.RunningWork
	r := float64(s.WorkerMB) * float64(a.cfg.OutThresholdPercent) / 100
	c := float64(s.Workers+s.PendingWorkers) * r
	t, b := a.horizon().Seconds(), a.cfg.BootTime.Seconds()
	fast := min(workers(w-c*t, r*t), max(s.RoomWorkers, 0))
	boot := workers(w-(c+float64(fast)*r)*(b+t), r*t)
	return fast + boot, true
}

// WantsWorkers says whether the group's work needs more workers than it
// has and has asked for: the work in sight's need when it can be
// estimated, else any queued attempt. A billing-aware world keeps an
// empty paid node past its boundary only when this holds
// (KeepEmptyNode's needed).
func (a *Autoscaler) WantsWorkers(s GroupSnapshot) bool {
	if need, ok := a.workNeed(s); ok {
		return need > 0
	}
	return s.QueuedAttempts > 0
}

// workKnown says whether the autoscaler can size from the work in sight:
// predictive scale-out on (the AM fills the figures only then), a boot
// time known, and every queued attempt of a kind with an estimate.
func (a *Autoscaler) workKnown(s GroupSnapshot) bool {
	return a.cfg.Predictive && a.cfg.BootTime > 0 && s.UnknownQueued == 0 && s.WorkerMB > 0
}

// workers is ceil(x / per), at least 0.
func workers(x, per float64) int {
	if x <= 0 || per <= 0 {
		return 0
	}
	return int(math.Ceil(x / per))
}

// workScaleOut is predictive scale-out from the work in sight: it fires
// when the need is positive. It reports false (leaving d alone) when it
// does not fire or cannot say (then the drain-time rule applies).
func (a *Autoscaler) workScaleOut(now time.Time, s GroupSnapshot, d *Decision) (fired, ok bool) {
	need, ok := a.workNeed(s)
	if !ok {
		return false, false
	}
	n := min(rampCount(need, s.Ramp), queueCanUse(s))
	if need <= 0 || n <= 0 || s.QueuedAttempts <= 0 {
		return false, true
	}
	d.RequestWorkers = n
	d.Reason = fmt.Sprintf("work in sight %s MB·s needs %d more %s within boot %ss + horizon %ss (%s), requesting %d",
		mbsText(s.QueuedWork+s.RunningWork), need, plural(need, "worker"), secs(a.cfg.BootTime),
		secs(a.horizon().Round(time.Second)), a.targetText(), n)
	a.becomeScaleOut(now, n, d.Reason)
	return true, true
}

// capByWork caps a threshold scale-out's request at the work's need when
// the autoscaler can estimate it (predictive on and a boot time known).
func (a *Autoscaler) capByWork(n int, s GroupSnapshot) int {
	if !a.cfg.Predictive {
		return n
	}
	if need, ok := a.workNeed(s); ok {
		return min(n, need)
	}
	return n
}

func mbsText(x float64) string { return fmt.Sprintf("%.0f", x) }

// keepForWork is how many of cands (in order) a billing-aware scale-in
// may empty so that the workers left still finish the work in sight,
// including the tasks predicted to arrive (WaitingWork), within a boot
// plus the target: a node whose paid period ends is renewed only when
// the work needs it, and a scale-in never removes what the scale-out rule
// (workNeed) would ask back at once.
func (a *Autoscaler) keepForWork(s GroupSnapshot, cands []inCandidate) int {
	w := s.QueuedWork + s.RunningWork + s.WaitingWork
	r := float64(s.WorkerMB) * float64(a.cfg.OutThresholdPercent) / 100
	horizon := (a.cfg.BootTime + a.horizon()).Seconds()
	left := s.Workers
	for k, c := range cands {
		left -= c.Workers
		if w > float64(left)*r*horizon {
			return k
		}
	}
	return len(cands)
}

// boundaryScaleIn is billing-aware scale-in from the work in sight: with a
// billing period and a work estimate, the nodes near the end of their
// paid period that the work does not need are emptied whatever the usage
// window says and however recently the group scaled out. The usage
// guards (threshold, hysteresis, delay after scale-out) exist to avoid
// paying a boot again for capacity given up too early; at a boundary the
// choice is instead renewing a whole period, and the work estimate,
// including the tasks predicted to arrive, is what says whether the
// period will be used. It reports false when it does not apply or finds
// nothing to empty.
func (a *Autoscaler) boundaryScaleIn(now time.Time, s GroupSnapshot, d *Decision) bool {
	if a.cfg.BillingPeriod <= 0 || !a.workKnown(s) || s.Workers <= 0 || len(s.Nodes) <= a.cfg.MinHosts {
		return false
	}
	nodes, _ := a.chooseNodes(now, s, true)
	if len(nodes) == 0 {
		return false
	}
	d.DrainNodes = nodes
	if a.cfg.WaitDAGFinished {
		d.WaitForDAGs = slices.Clone(s.ActiveDAGs)
	}
	d.Reason = fmt.Sprintf("%d %s near the end of the paid period, not needed by the work in sight (%s MB·s): draining %s",
		len(nodes), plural(len(nodes), "node"), mbsText(s.QueuedWork+s.RunningWork+s.WaitingWork), strings.Join(nodes, ", "))
	a.becomeScaleIn(now, d.Reason)
	return true
}

// askAgain lets a scale-out in progress ask for more when work arrives
// during it (predictive scale-out only), when the work in sight can be
// estimated and needs more than the group has and has asked for. Without
// it a DAG that arrives during a boot waits for that boot and then for a
// second one, asked only once the first has landed. The grace period
// restarts, since the new workers need their own boot. (During the cold
// start nothing has finished, so nothing can be estimated: asking for all
// the queued memory there bought Decima's 25 s case 660 workers for jobs
// of seconds, 2.75× the oracle; it does not ask.)
func (a *Autoscaler) askAgain(now time.Time, s GroupSnapshot, d *Decision) bool {
	if !a.cfg.Predictive || a.cfg.FixedHorizon || s.QueuedAttempts <= 0 {
		return false
	}
	need, ok := a.workNeed(s)
	if !ok {
		return false
	}
	n := min(rampCount(need, s.Ramp), queueCanUse(s))
	if need <= 0 || n <= 0 {
		return false
	}
	d.RequestWorkers = n
	d.Reason = fmt.Sprintf("scale-out in progress, the work in sight needs %d more (%s), requesting %d",
		need, a.targetText(), n)
	a.becomeScaleOut(now, a.requested+n, d.Reason)
	return true
}
