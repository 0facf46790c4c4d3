package report

import (
	"fmt"
	"math"
	"sort"
)

// The yardstick of the latency target (docs/autoscaling-target.md): the
// p95 slowdown a policy promises at target T is judged against
//
//	bound = T × max(1, floor)
//
// floor being the run's cold-start floor (floor.go): no policy that starts
// with no node can do better than the floor, so the promise is T times it
// where the cold start alone is slower than the critical path.

// Bound is the p95 slowdown a target T allows on a run with that floor.
func Bound(target, floor float64) float64 { return target * math.Max(1, floor) }

// DialRun is one run of the policy under test at one target, on one case
// (trace × cloud).
type DialRun struct {
	Case   string
	Target float64
	Summary
}

// Met says whether the run's p95 slowdown is within its bound.
func (r DialRun) Met() bool { return r.P95Slowdown <= Bound(r.Target, r.P95SlowdownFloor) }

// Over is the p95 slowdown over the bound (≤ 1 when met; NaN unmeasured).
func (r DialRun) Over() float64 { return r.P95Slowdown / Bound(r.Target, r.P95SlowdownFloor) }

// DialVerdict is the dial criterion over a set of runs: met of total
// runs within their bound, the worst ratio to a bound, and the runs that
// missed, worst first.
type DialVerdict struct {
	Met, Total int
	Worst      float64
	Misses     []DialRun
}

// Dial judges runs: how many meet their bound, and the worst.
func Dial(runs []DialRun) DialVerdict {
	v := DialVerdict{Total: len(runs)}
	for _, r := range runs {
		if r.Met() {
			v.Met++
		} else {
			v.Misses = append(v.Misses, r)
		}
		if o := r.Over(); math.IsNaN(o) || o > v.Worst {
			v.Worst = o
		}
	}
	sort.SliceStable(v.Misses, func(i, j int) bool { return v.Misses[i].Over() > v.Misses[j].Over() })
	return v
}

// Holds says whether the dial holds: at least need of the runs within
// their bound (the 54 of 60: 90%), and none above maxOver × its
// bound (1.5).
func (v DialVerdict) Holds(share, maxOver float64) bool {
	return float64(v.Met) >= share*float64(v.Total) && v.Worst <= maxOver
}

// FrontierMisses are the peer runs on one case that no run of the policy
// under test matches: a peer whose p95 slowdown is at most usable ×
// max(1, floor) (a peer cheaper only by being unusably slow does not
// count) is matched by a run at some target with no higher cost and no
// worse p95. floor is the case's cold-start floor (the policy under
// test's, the same first boot for every elastic run).
func FrontierMisses(mine []DialRun, peers []Summary, floor, usable float64) []string {
	var out []string
	for _, p := range peers {
		if !(p.P95Slowdown <= usable*math.Max(1, floor)) {
			continue
		}
		matched := false
		for _, r := range mine {
			if r.Cost <= p.Cost && r.P95Slowdown <= p.P95Slowdown {
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, fmt.Sprintf("%s (cost %.2f, p95 %.2f) is matched by no target", p.Policy, p.Cost, p.P95Slowdown))
		}
	}
	return out
}
