package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
	"github.com/ebb-am/ebb/sim/report"
)

// hourlyCloud is the second cloud: 32 GiB nodes that take 240 s
// to boot, billed per started hour.
func hourlyCloud() Config {
	c := DefaultConfig()
	c.Cloud.Types[0].MemoryMB = 32768
	c.Cloud.ProvisionDelay = 240 * time.Second
	c.Cloud.BillingPeriod = time.Hour
	return c
}

// The yardstick of the latency target (docs/autoscaling-target.md), on
// the case set (cases_test.go): the quick subset by default, every case
// with EBB_SIM_CASES=all.
var (
	// dialTargets are the targets the dial is judged at.
	dialTargets = []float64{1.5, 2, 3}
	// frontierTargets are the targets ebb may match a peer with.
	frontierTargets = []float64{1.25, 1.5, 2, 3, 5}
)

const (
	// dialShare of the runs must meet their bound (54 of 60), and none
	// may be above dialMaxOver × its bound.
	dialShare, dialMaxOver = 0.9, 1.5
	// usableOver: a peer whose p95 is above this × max(1, floor) is too
	// slow to use, and does not count against ebb on the frontier.
	usableOver = 3.0
	// defaultTarget is the key's default, at which ebb must be the
	// cheapest of the runs that meet their bound on dialShare of the cases.
	defaultTarget = 2.0
	// todaySpec is the control: the policy before the target.
	todaySpec = "ebb@sim.ebb.fixed.horizon=true"
)

// ebbAt names ebb at target t as runCase takes it.
func ebbAt(t float64) string {
	return fmt.Sprintf("ebb@%s=%g", scheduler.KeyTargetSlowdown, t)
}

// dialPolicies are the runs each case needs: the peers, ebb at every
// target, and the control.
func dialPolicies() []string {
	out := slices.Clone(goalPeers)
	for _, t := range frontierTargets {
		out = append(out, ebbAt(t))
	}
	return append(out, todaySpec)
}

// knownMisses are where ebb, as measured on the quick subset, misses the
// yardstick, with the figure that missed: "case@T" for the dial, "case
// frontier" for the frontier. A listed entry reports its miss and does not
// fail; it fails once it is met (so the list cannot outlive what it says).
// Every other entry must be met. Decima's misses are its cold start: the
// jobs that arrive during the first boots queue behind one another
// (docs/autoscaling-target.md); k8s-ca's p95 of 1.1-1.2 on the DAG day is
// below what ebb reaches at 1.25.
var knownMisses = map[string]string{
	"Decima-25s-seed1/hourly@1.5":              "p95 26.41 > 13.72",
	"Decima-25s-seed1/hourly@2":                "p95 29.86 > 18.29",
	"Decima-25s-seed1/hourly@3":                "p95 29.86 > 27.44",
	"Decima-25s-seed1/per-second@1.5":          "p95 21.29 > 6.12",
	"Decima-25s-seed1/per-second@2":            "p95 21.38 > 8.17",
	"Decima-25s-seed1/per-second@3":            "p95 21.38 > 12.25",
	"Decima-50s-seed2/hourly@1.5":              "p95 31.89 > 6.22",
	"Decima-50s-seed2/hourly@2":                "p95 31.89 > 8.30",
	"Decima-50s-seed2/hourly@3":                "p95 32.86 > 12.44",
	"Decima-50s-seed2/per-second@1.5":          "p95 22.52 > 1.50",
	"Decima-50s-seed2/per-second@2":            "p95 23.79 > 2.00",
	"Decima-50s-seed2/per-second@3":            "p95 25.31 > 3.00",
	"Alibaba-2018-DAG-day/hourly frontier":     "k8s-ca at 3075.84 · 1.12 unmatched",
	"Alibaba-2018-DAG-day/per-second frontier": "k8s-ca at 2244.85 · 1.22 unmatched",
	"Decima-25s-seed1/hourly frontier":         "k8s-ca at 245.76 · 15.17 unmatched",
	"Decima-25s-seed1/per-second frontier":     "k8s-ca at 93.60 · 9.32 unmatched",
}

// summaryOf finds a policy's figures in a report ("static-peak" finds
// the run labelled "static-peak=N").
func summaryOf(rep report.Report, policy string) (report.Summary, bool) {
	for _, s := range rep.Policies {
		if s.Policy == policy || strings.HasPrefix(s.Policy, policy+"=") {
			return s, true
		}
	}
	return report.Summary{}, false
}

// dialRuns are one case's runs of policy at each target (policy gives
// the run's name for a target: one run may stand for every target).
func dialRuns(name string, rep report.Report, policy func(float64) string, targets []float64) []report.DialRun {
	var out []report.DialRun
	for _, t := range targets {
		if s, ok := summaryOf(rep, policy(t)); ok {
			out = append(out, report.DialRun{Case: name, Target: t, Summary: s})
		}
	}
	return out
}

// yardstick is every check of the yardstick on a set of cases for one
// policy (named per target by policy): the dial's runs, each case's
// frontier misses, and the cost at the default.
type yardstick struct {
	dial     report.DialVerdict
	runs     []report.DialRun
	frontier map[string][]string // case → the peers no target matches
	cost     string              // "" when the cost at the default holds
}

func measure(reps map[string]report.Report, policy func(float64) string, peers []string) yardstick {
	y := yardstick{frontier: map[string][]string{}}
	meets := map[string]int{} // per policy: cases meeting the bound at the default
	mean := map[string]float64{}
	for _, name := range sortedKeys(reps) {
		rep := reps[name]
		y.runs = append(y.runs, dialRuns(name, rep, policy, dialTargets)...)
		mine := dialRuns(name, rep, policy, frontierTargets)
		var ps []report.Summary
		floor := math.NaN()
		if len(mine) > 0 {
			floor = mine[0].P95SlowdownFloor
		}
		for _, p := range peers {
			if s, ok := summaryOf(rep, p); ok {
				ps = append(ps, s)
			}
		}
		if m := report.FrontierMisses(mine, ps, floor, usableOver); len(m) > 0 {
			y.frontier[name] = m
		}
		for _, p := range append([]string{policy(defaultTarget)}, peers...) {
			if s, ok := summaryOf(rep, p); ok {
				if s.P95Slowdown <= report.Bound(defaultTarget, s.P95SlowdownFloor) {
					meets[p]++
				}
				mean[p] += s.CostToOracle / float64(len(reps))
			}
		}
	}
	y.dial = report.Dial(y.runs)
	me := policy(defaultTarget)
	qualifies := func(p string) bool { return float64(meets[p]) >= dialShare*float64(len(reps)) }
	for _, p := range peers {
		if qualifies(p) && (!qualifies(me) || mean[p] < mean[me]) {
			y.cost = fmt.Sprintf("%s meets the bound at %g on %d of %d cases at %.2f× the oracle on average; %s on %d at %.2f×",
				p, defaultTarget, meets[p], len(reps), mean[p], me, meets[me], mean[me])
		}
	}
	return y
}

// failures lists what fails the yardstick, known misses aside; notes
// lists the known misses it reported.
func (y yardstick) failures(known map[string]string) (fails, notes []string) {
	for _, r := range y.runs {
		key := fmt.Sprintf("%s@%g", r.Case, r.Target)
		why, listed := known[key]
		switch {
		case !r.Met() && !listed:
			fails = append(fails, fmt.Sprintf("dial: %s: p95 %.2f > bound %.2f (floor %.2f)", key, r.P95Slowdown, report.Bound(r.Target, r.P95SlowdownFloor), r.P95SlowdownFloor))
		case r.Met() && listed:
			fails = append(fails, fmt.Sprintf("dial: %s now meets its bound (listed as a known miss: %s): take it out of knownMisses", key, why))
		case listed:
			notes = append(notes, fmt.Sprintf("KNOWN MISS %s (recorded %s): p95 %.2f > %.2f", key, why, r.P95Slowdown, report.Bound(r.Target, r.P95SlowdownFloor)))
		}
	}
	cases := map[string]bool{}
	for _, r := range y.runs {
		cases[r.Case] = true
	}
	for _, c := range slices.Sorted(maps.Keys(cases)) {
		key := c + " frontier"
		why, listed := known[key]
		m := y.frontier[c]
		switch {
		case len(m) > 0 && !listed:
			fails = append(fails, "frontier: "+c+": "+strings.Join(m, "; "))
		case len(m) == 0 && listed:
			fails = append(fails, fmt.Sprintf("frontier: %s now holds (listed: %s): take it out of knownMisses", c, why))
		case listed:
			notes = append(notes, fmt.Sprintf("KNOWN MISS %s (recorded %s): %s", key, why, strings.Join(m, "; ")))
		}
	}
	if y.cost != "" {
		if why, listed := known["cost at the default"]; listed {
			notes = append(notes, "KNOWN MISS cost at the default (recorded "+why+"): "+y.cost)
		} else {
			fails = append(fails, "cost at the default: "+y.cost)
		}
	}
	slices.Sort(fails)
	slices.Sort(notes)
	return fails, notes
}

// TestEbbNotDominated is the latency target's yardstick on the case set
// (the quick subset; every case with EBB_SIM_CASES=all): the dial (each
// run's p95 within T × max(1, floor) at T = 1.5, 2 and 3), the frontier
// (every usable peer matched by ebb at some target with no higher cost
// and no worse p95) and the cost at the default, known misses aside. The
// controls run the same checks on the same replays
// and must fail where ebb is held (ebb's known misses aside): mr3 in
// ebb's place (one run standing for every target) and the policy before
// the target (the fixed 120 s horizon, no feedback). -short skips it.
func TestEbbNotDominated(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every case under ten policies; the test command runs it without -short")
	}
	reps := replayCases(t, dialPolicies(), nil)
	y := measure(reps, ebbAt, goalPeers)
	t.Logf("dial: %d of %d runs within their bound, worst %.2f× its bound", y.dial.Met, y.dial.Total, y.dial.Worst)
	fails, notes := y.failures(knownMisses)
	for _, n := range notes {
		t.Log(n)
	}
	for _, f := range fails {
		t.Error(f)
	}
	controls := []struct {
		name   string
		policy func(float64) string
		peers  []string
	}{
		{"control-mr3-must-fail", func(float64) string { return "mr3" }, []string{"spark-da", "k8s-ca"}},
		{"control-today-must-fail", func(float64) string { return todaySpec }, goalPeers},
	}
	for _, c := range controls {
		t.Run(c.name, func(t *testing.T) {
			// Held where ebb is held: ebb's known misses are the
			// control's too, and one it meets is no failure of it.
			cy := measure(reps, c.policy, c.peers)
			all, _ := cy.failures(knownMisses)
			var fails []string
			for _, f := range all {
				if !strings.Contains(f, " now meets ") && !strings.Contains(f, " now holds ") {
					fails = append(fails, f)
				}
			}
			if len(fails) == 0 {
				t.Fatalf("%s passes the yardstick where ebb is held to it: it has no teeth", c.name)
			}
			t.Logf("as expected, it fails %d checks (dial %d of %d, worst %.2f× the bound):\n%s", len(fails),
				cy.dial.Met, cy.dial.Total, cy.dial.Worst, strings.Join(fails, "\n"))
		})
	}
}

// replayCases replays every case of goalCases under goalClouds with
// policies, in parallel subtests; each (when not nil) is called with each
// case as it ends.
func replayCases(t *testing.T, policies []string, each func(string, report.Report)) map[string]report.Report {
	var mu sync.Mutex
	reps := map[string]report.Report{}
	t.Run("cases", func(t *testing.T) {
		for _, tc := range goalCases(t) {
			for _, c := range goalClouds() {
				name := tc.name + "/" + c.name
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					rep := runCase(t, tc, c, policies)
					mu.Lock()
					defer mu.Unlock()
					reps[name] = rep
					if each != nil {
						each(name, rep)
					}
				})
			}
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return reps
}

func sortedKeys(m map[string]report.Report) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The yardstick on made-up figures: the bound, the dial's share and worst,
// the frontier (an unusable peer does not count), the cost at the default,
// and that a known miss that is met fails.
func TestYardstick(t *testing.T) {
	sum := func(policy string, cost, p95, floor float64) report.Summary {
		return report.Summary{Policy: policy, Cost: cost, CostToOracle: cost / 10, P95Slowdown: p95, P95SlowdownFloor: floor}
	}
	if b := report.Bound(2, 4); b != 8 {
		t.Errorf("Bound(2, floor 4) = %v, want 8", b)
	}
	if b := report.Bound(1.5, 0.5); b != 1.5 {
		t.Errorf("Bound(1.5, floor 0.5) = %v, want 1.5", b)
	}
	rep := report.Report{Policies: []report.Summary{
		sum(ebbAt(1.25), 20, 1.2, 1), sum(ebbAt(1.5), 15, 1.5, 1), sum(ebbAt(2), 10, 2.5, 1),
		sum(ebbAt(3), 8, 2.9, 1), sum(ebbAt(5), 5, 4, 1),
		sum("cheap-usable", 9, 2.95, 1), sum("cheap-unusable", 1, 3.5, 1),
	}}
	y := measure(map[string]report.Report{"c": rep}, ebbAt, []string{"cheap-usable", "cheap-unusable"})
	if y.dial.Met != 2 || y.dial.Total != 3 || math.Abs(y.dial.Worst-1.25) > 1e-9 {
		t.Errorf("dial %d of %d, worst %v; want 2 of 3 (2.5 > 2 misses), worst 1.25", y.dial.Met, y.dial.Total, y.dial.Worst)
	}
	if y.dial.Holds(dialShare, dialMaxOver) {
		t.Error("2 of 3 holds the dial; want not (below 90%)")
	}
	if got := y.frontier["c"]; len(got) != 0 {
		t.Errorf("frontier misses %q; want none (ebb at 3 matches cheap-usable, cheap-unusable does not count)", got)
	}
	if y.cost != "" {
		t.Errorf("cost at the default %q: no peer meets the bound at 2, so nothing to be cheaper than", y.cost)
	}
	// A usable peer ebb cannot match, and one cheaper at the default.
	rep.Policies = append(rep.Policies, sum("better", 7, 1.9, 1))
	y = measure(map[string]report.Report{"c": rep}, ebbAt, []string{"better"})
	if len(y.frontier["c"]) != 1 || y.cost == "" {
		t.Errorf("frontier %q, cost %q; want the peer at 7 · 1.9 unmatched and cheaper at the default", y.frontier["c"], y.cost)
	}
	fails, _ := y.failures(map[string]string{"c@1.5": "listed"})
	joined := strings.Join(fails, "\n")
	for _, want := range []string{"dial: c@2", "c@1.5 now meets", "frontier: c", "cost at the default"} {
		if !strings.Contains(joined, want) {
			t.Errorf("failures %q lack %q", joined, want)
		}
	}
}
