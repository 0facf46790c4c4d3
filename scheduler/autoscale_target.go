package scheduler

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The latency target (ebb.auto.scale.target.p95.slowdown, T) is the
// autoscaler's one latency input. A DAG's slowdown is its completion time
// over its critical path; the promise is that 95 of 100 DAGs stay within
// T. What the autoscaler turns it into is the horizon H: how long the work
// in sight may take to drain on top of a boot (autoscale_work.go), in
// scale-out and in billing-aware scale-in alike:
//
//	H = (T − 1) × priorPath × e^u
//
// (T − 1) × a critical path is a DAG's slack: the wait it can absorb and
// still end within T times its critical path. priorPath stands for the
// critical path of the DAGs to come before any has been measured. u is the
// feedback: after each DAG the core reports its measured slowdown s, and
//
//	u ← u + step × (missRate − [s > T])
//
// a stochastic-approximation quantile tracker: while more than missRate of
// the DAGs miss the target, u falls and the horizon shortens (more workers,
// sooner, and fewer given back); while fewer miss, it grows and the
// autoscaler spends less. It settles where missRate of the DAGs miss, just
// inside the promise, whatever the workload's critical paths, arrivals or the
// cloud's boot: a fixed margin would be right for one trace only.

const (
	// maxTargetSlowdown bounds the key (a slowdown of 1000 is no promise).
	maxTargetSlowdown = 1000
	// priorPath is the horizon's scale at T = 2 before any DAG has been
	// measured: the drain target of predictive scale-out before the target
	// replaced it (decided on FB-2009, the trace it was shaped on).
	priorPath = 120 * time.Second
	// missRate is the share of DAGs the tracker lets miss: one in 25,
	// inside the promise's one in 20, because the slowdowns it sees are
	// lower than the promise's (the AM's critical path counts each
	// vertex's slowest attempt as run, contention included, where the
	// promise counts the tasks' own times) and the p95 of a day swings
	// around the tracker's aim. Decided on the Alibaba 2018 DAG day per
	// second (at 0.05 it missed 1.5 and 2 by 0.17 and 0.05); checked on
	// FB-2009 day 0 (sim/README.md).
	missRate = 0.04
	// trackStep is the tracker's step, in e-folds of the horizon per
	// missed DAG (÷ e^0.095 a miss, × e^0.005 a hit). Decided on FB-2009
	// day 0 per second (sim/README's leave-one-out), the fastest that
	// does not swing between its bounds there.
	trackStep = 0.1
	// maxGain bounds u either way (e^±4, a factor of 55): the horizon
	// never shrinks below a sampling interval's worth of patience nor grows
	// without end over a long quiet stretch of hits.
	maxGain = 4.0
	// recentDAGs is how many of the latest slowdowns MeasuredP95 reports.
	recentDAGs = 50
)

// slowdownTrack is the feedback state: the tracker's u and the latest
// slowdowns, for reasons and the UI.
type slowdownTrack struct {
	u      float64
	recent []float64 // ring of the latest recentDAGs slowdowns
	next   int
	seen   int
}

// ObserveDAG feeds the tracker one finished DAG: how long it took from
// submission to its end, and its critical path as measured (the longest
// chain of its vertices' slowest attempts). A DAG with no measured path
// is ignored.
func (a *Autoscaler) ObserveDAG(took, critical time.Duration) {
	if critical <= 0 || took <= 0 {
		return
	}
	s := took.Seconds() / critical.Seconds()
	t := &a.track
	miss := 0.0
	if s > a.cfg.TargetSlowdown {
		miss = 1
	}
	t.u = math.Max(-maxGain, math.Min(maxGain, t.u+trackStep*(missRate-miss)))
	if len(t.recent) < recentDAGs {
		t.recent = append(t.recent, s)
	} else {
		t.recent[t.next] = s
	}
	t.next = (t.next + 1) % recentDAGs
	t.seen++
}

// MeasuredP95 is the p95 slowdown (nearest rank) over the latest DAGs
// observed, and how many that is (at most 50; 0: none yet).
func (a *Autoscaler) MeasuredP95() (p95 float64, dags int) {
	r := a.track.recent
	if len(r) == 0 {
		return 0, 0
	}
	s := slices.Clone(r)
	slices.Sort(s)
	rank := int(math.Ceil(0.95 * float64(len(s))))
	return s[max(rank, 1)-1], len(s)
}

// horizon is H above, at least one sampling interval (at T = 1 there is
// no slack at all: the autoscaler then sizes for the work to drain by its
// next step).
func (a *Autoscaler) horizon() time.Duration {
	if a.cfg.FixedHorizon {
		return priorPath
	}
	h := (a.cfg.TargetSlowdown - 1) * priorPath.Seconds() * math.Exp(a.track.u)
	return max(time.Duration(h*float64(time.Second)), a.cfg.Interval, time.Second)
}

// targetText is the target and what has been measured, as reasons quote
// them: "target p95 2, measured 2.4 over 50 DAGs".
func (a *Autoscaler) targetText() string {
	p, n := a.MeasuredP95()
	if n == 0 {
		return fmt.Sprintf("target p95 %s, no DAG measured yet", num(a.cfg.TargetSlowdown))
	}
	return fmt.Sprintf("target p95 %s, measured %s over %d %s", num(a.cfg.TargetSlowdown), num(p), n, plural(n, "DAG"))
}

func num(x float64) string {
	return fmt.Sprintf("%.3g", x)
}
