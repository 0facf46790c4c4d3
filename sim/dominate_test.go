package sim

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// knownMisses are the cases (trace/cloud) of the quick subset on which
// today's ebb policy misses issue 26's goal (cost or p95; issue 26 is
// open: sim/README.md, "The case set of issue 26"), with what it missed
// when last measured. On them the test reports the miss and does not
// fail on it; it still fails there when a peer dominates ebb, and when a
// listed case starts to meet the goal (so the list cannot outlive what it
// says). Every other case must meet the goal.
var knownMisses = map[string]string{
	"Decima-25s-seed1/per-second":     "p95 21.77 > 8.17",
	"Decima-25s-seed1/hourly":         "p95 30.30 > 18.29",
	"Decima-50s-seed2/per-second":     "p95 23.81 > 2",
	"Decima-50s-seed2/hourly":         "p95 31.89 > 8.30",
	"Alibaba-2018-DAG-day/per-second": "p95 2.07 > 2",
}

// TestEbbNotDominated is issue 26's test of the goal on the case set
// (cases_test.go; the quick subset by default, every case with
// EBB_SIM_CASES=all), slowdowns against the oracle (each job's critical
// path): ebb costs at most 1.3× the oracle at a p95 slowdown of at most 2
// (at most twice the cold-start floor where the floor is above 1), and no
// peer (mr3, spark-da, k8s-ca) runs at no higher cost with no worse p95.
// The control runs the same check with mr3 in ebb's place (its peers ebb,
// spark-da and k8s-ca) on the same replays and expects it to fail on the
// cases ebb is held to: the check it replaced (slowdowns against
// static-40, no cost bound, Decima's goal skipped) passed with mr3 swapped
// in. -short skips it.
func TestEbbNotDominated(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every case under five policies; the test command runs it without -short")
	}
	var mu sync.Mutex
	reps := map[string]report.Report{}
	t.Run("cases", func(t *testing.T) {
		for _, tc := range goalCases() {
			for _, c := range allClouds {
				name := tc.name + "/" + c.name
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					rep := runCase(t, tc, c, append([]string{"ebb"}, goalPeers...))
					mu.Lock()
					reps[name] = rep
					mu.Unlock()
					checkGoal(t, name, goalMisses(rep, "ebb", goalPeers))
				})
			}
		}
	})
	t.Run("control-mr3-must-fail", func(t *testing.T) {
		var held, failed []string
		for _, name := range sortedKeys(reps) {
			if _, known := knownMisses[name]; known {
				continue
			}
			held = append(held, name)
			if miss := goalMisses(reps[name], "mr3", []string{"ebb", "spark-da", "k8s-ca"}); len(miss) > 0 {
				failed = append(failed, name+": "+strings.Join(miss, "; "))
			}
		}
		if len(held) == 0 {
			t.Fatal("no case holds ebb to the goal")
		}
		if len(failed) == 0 {
			t.Fatalf("mr3 in ebb's place passes every case ebb is held to (%s): the check has no teeth", strings.Join(held, ", "))
		}
		t.Logf("as expected, mr3 in ebb's place fails %d of the %d cases ebb is held to:\n%s", len(failed), len(held), strings.Join(failed, "\n"))
	})
}

// checkGoal fails t on a case's misses as goalVerdict says, and logs a
// known miss.
func checkGoal(t *testing.T, name string, misses []string) {
	t.Helper()
	fail, note := goalVerdict(name, misses)
	if fail != "" {
		t.Error(fail)
	}
	if note != "" {
		t.Log(note)
	}
}

// goalVerdict is why a case fails (fail), or what it reports (note): any
// miss fails an unlisted case; a listed one fails on a domination, and
// once it meets the goal, and otherwise reports its known miss.
func goalVerdict(name string, misses []string) (fail, note string) {
	why, known := knownMisses[name]
	if !known {
		if len(misses) > 0 {
			return "ebb misses the goal: " + strings.Join(misses, "; "), ""
		}
		return "", ""
	}
	var dominated []string
	for _, m := range misses {
		if strings.HasPrefix(m, "dominated by") {
			dominated = append(dominated, m)
		}
	}
	switch {
	case len(dominated) > 0:
		return "ebb is " + strings.Join(dominated, "; "), ""
	case len(misses) == 0:
		return fmt.Sprintf("ebb now meets the goal on %s (listed as a known miss: %s): take it out of knownMisses", name, why), ""
	}
	return "", fmt.Sprintf("KNOWN MISS (issue 26 open; recorded %s): %s", why, strings.Join(misses, "; "))
}

func sortedKeys(m map[string]report.Report) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// goalMisses on made-up figures: the cost bound, the p95 bound (twice the
// floor above a floor of 1), and domination at no higher cost and no
// worse p95 (ties count).
func TestGoalMisses(t *testing.T) {
	rep := func(cost, p95, floor float64, peers ...report.Summary) report.Report {
		// The oracle costs 10, so cost×10 is the policy's cost.
		r := report.Report{Policies: []report.Summary{{Policy: "ebb", Cost: 10 * cost, CostToOracle: cost, P95Slowdown: p95, P95SlowdownFloor: floor}}}
		r.Policies = append(r.Policies, peers...)
		return r
	}
	peer := func(cost, p95 float64) report.Summary {
		return report.Summary{Policy: "p", Cost: cost, P95Slowdown: p95}
	}
	for _, tc := range []struct {
		name string
		rep  report.Report
		miss int
	}{
		{"at the goal", rep(1.3, 2, 1), 0},
		{"too dear", rep(1.31, 1, 1), 1},
		{"too slow", rep(1, 2.01, 1), 1},
		{"floor 4: 8 allowed", rep(1, 8, 4), 0},
		{"floor 4: 8.1 is not", rep(1, 8.1, 4), 1},
		{"a peer as cheap, as fast", rep(1, 1.5, 1, peer(10, 1.5)), 1},
		{"a peer cheaper but slower", rep(1, 1.5, 1, peer(9, 1.6)), 0},
		{"a peer faster but dearer", rep(1, 1.5, 1, peer(10.1, 1.0)), 0},
		{"everything at once", rep(2, 3, 1, peer(1, 1)), 3},
	} {
		if got := goalMisses(tc.rep, "ebb", []string{"p"}); len(got) != tc.miss {
			t.Errorf("%s: misses %q, want %d", tc.name, got, tc.miss)
		}
	}
}

// goalVerdict on made-up misses: a listed case reports a goal miss, fails
// on a domination and fails once it meets the goal; an unlisted case
// fails on any miss.
func TestGoalVerdict(t *testing.T) {
	known := "Decima-25s-seed1/per-second"
	for _, tc := range []struct {
		name, kase string
		misses     []string
		fail       bool
	}{
		{"listed, misses the goal", known, []string{"ebb's p95 slowdown 9 > 8.17"}, false},
		{"listed, dominated", known, []string{"dominated by k8s-ca (…)"}, true},
		{"listed, meets the goal", known, nil, true},
		{"unlisted, misses", "FB-2009-day0/per-second", []string{"ebb costs 1.4× the oracle"}, true},
		{"unlisted, meets", "FB-2009-day0/per-second", nil, false},
	} {
		if fail, _ := goalVerdict(tc.kase, tc.misses); (fail != "") != tc.fail {
			t.Errorf("%s: fail %q, want failing %v", tc.name, fail, tc.fail)
		}
	}
}
