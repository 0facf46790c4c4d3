package scheduler

import (
	"fmt"
	"math"
	"time"
)

// How many workers a scale-out asks for. Every count is capped by what the
// queue can use (queueCanUse): a worker with no attempt to run only idles
// until the idle timeout releases it.

// queueCanUse is how many more workers the queued attempts could keep
// busy: one per queued attempt at most, less the workers already pending,
// which will take their share of the queue when they launch. It may be
// ≤ 0. Memory is not part of the cap: the counts below already size by
// memory, and a cap of ceil(QueuedMB / WorkerMB) would always undercut
// the threshold formula (which leaves room for the threshold's headroom).
func queueCanUse(s GroupSnapshot) int {
	return s.QueuedAttempts - s.PendingWorkers
}

// initialWorkers is the request for a group with queued work and no
// worker: mr3.auto.scale.out.num.initial.containers, or when that is 0 the
// workers the queued memory fills, ceil(QueuedMB / WorkerMB), at most one
// per queued attempt and at least one; less what is already pending. An
// explicit initial count is honoured even above the demand: an admin sets
// it to warm a group up for the work about to follow.
func (a *Autoscaler) initialWorkers(s GroupSnapshot) int {
	want := a.cfg.InitialWorkers
	if want == 0 {
		want = s.QueuedAttempts
		if s.WorkerMB > 0 && s.QueuedMB > 0 {
			want = min(want, int(ceilDiv(s.QueuedMB, s.WorkerMB)))
		}
		want = max(1, want)
	}
	return want - s.PendingWorkers
}

// scaleOutCount is the request of a threshold scale-out.
//
// With mr3.auto.scale.out.num.increment.containers > 0 it is that key.
// With 0 it is computed from the gap to the threshold: the workers that
// bring the group's demand back to the threshold,
//
//	total  = ceil((running MB + queued MB) / (WorkerMB × out%))
//	needed = total − Workers − PendingWorkers, at least 1
//
// where running MB is the larger of the memory running attempts hold now
// and the window's usage × the memory offered now (so an average that
// smoothed a burst away does not undercount). Then the DAG's ramp
// (rampCount) and the queue cap (queueCanUse) apply.
func (a *Autoscaler) scaleOutCount(s GroupSnapshot) int {
	canUse := queueCanUse(s)
	if canUse <= 0 {
		return 0
	}
	n := a.cfg.IncrementWorkers
	if n == 0 {
		n = 1
		if s.WorkerMB > 0 {
			offered := float64(s.Workers) * float64(s.WorkerMB)
			running := max(float64(s.runningMB()), a.usage/100*offered)
			perWorker := float64(s.WorkerMB) * float64(a.cfg.OutThresholdPercent) / 100
			total := int(math.Ceil((running + float64(s.QueuedMB)) / perWorker))
			n = max(1, total-s.Workers-s.PendingWorkers)
		}
	}
	return min(rampCount(n, s.Ramp), canUse)
}

// rampCount applies a DAG's `scaling:` ramp to a scale-out request: an
// aggressive (ad-hoc, latency-bound) DAG doubles it, a conservative
// (batch, cost-bound) one halves it, rounding up so it still grows.
// Doubling compounds over successive scale-outs into an exponential ramp;
// halving keeps a batch DAG's group from overshooting a transient queue.
func rampCount(n int, ramp string) int {
	switch ramp {
	case RampAggressive:
		return 2 * n
	case RampConservative:
		return max(1, (n+1)/2)
	}
	return n
}

// predictiveScaleOut (ebb.auto.scale.predictive.*) scales out before the
// usage threshold is reached when the queue would take too long to drain.
// With the attempts running now as the parallelism,
//
//	drain = QueuedAttempts × MeanAttemptDuration / max(1, RunningAttempts)
//
// and when drain > H (the horizon the latency target gives,
// autoscale_target.go) the group needs the parallelism
//
//	P = ceil(QueuedAttempts × MeanAttemptDuration / H)
//
// that is, P − RunningAttempts more attempt slots. A worker holds
// RunningAttempts / Workers attempts (at least 1), so the request is
// ceil((P − RunningAttempts) / that), at least 1, then the ramp and the
// queue cap as for a threshold scale-out. The increment key does not
// apply: the estimate already says how much parallelism the queue wants.
// It reports false (and leaves d alone) when it does not fire. With a boot
// time and a work estimate the rule from the work in sight replaces it
// (autoscale_work.go).
func (a *Autoscaler) predictiveScaleOut(now time.Time, s GroupSnapshot, d *Decision) bool {
	if fired, ok := a.workScaleOut(now, s, d); ok {
		return fired
	}
	if s.QueuedAttempts <= 0 || s.Workers <= 0 || s.MeanAttemptDuration <= 0 {
		return false
	}
	target := a.horizon()
	queued, mean := float64(s.QueuedAttempts), s.MeanAttemptDuration.Seconds()
	running := float64(s.RunningAttempts)
	drain := queued * mean / max(1, running)
	if drain <= target.Seconds() {
		return false
	}
	canUse := queueCanUse(s)
	if canUse <= 0 {
		return false
	}
	p := math.Ceil(queued * mean / target.Seconds())
	perWorker := max(1, running/float64(s.Workers))
	n := max(1, int(math.Ceil((p-running)/perWorker)))
	n = min(rampCount(n, s.Ramp), canUse)
	d.RequestWorkers = n
	d.Reason = fmt.Sprintf("predicted drain %ss > horizon %ss (%d queued × %ss / %d running; %s), requesting %d %s",
		secs(time.Duration(drain*float64(time.Second)).Round(time.Second)), secs(target.Round(time.Second)), s.QueuedAttempts,
		secs(s.MeanAttemptDuration), s.RunningAttempts, a.targetText(), n, plural(n, "worker"))
	a.becomeScaleOut(now, n, d.Reason)
	return true
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
