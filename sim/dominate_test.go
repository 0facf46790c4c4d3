package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/traces"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
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

// dominatedBy lists the peers whose run has both lower cost and lower p95
// slowdown than the policy's.
func dominatedBy(rep report.Report, policy string, peers []string) []string {
	by := map[string]report.Summary{}
	for _, s := range rep.Policies {
		by[s.Policy] = s
	}
	me := by[policy]
	var out []string
	for _, p := range peers {
		if s := by[p]; s.Cost < me.Cost && s.P95Slowdown < me.P95Slowdown {
			out = append(out, fmt.Sprintf("%s (cost %.2f < %.2f, p95 slowdown %.2f < %.2f)", p, s.Cost, me.Cost, s.P95Slowdown, me.P95Slowdown))
		}
	}
	return out
}

// TestEbbNotDominated is issue 13's CI check: on the FB-2009 day, on the
// Alibaba 2017 two-hour window and on Decima TPC-H, under per-second billing (64 GiB
// nodes, 180 s boot) and hourly billing (32 GiB, 240 s), no peer (mr3,
// spark-da, k8s-ca) has both a lower cost and a lower p95 slowdown than
// ebb's default configuration; and ebb costs at most twice the oracle at
// a p95 slowdown of at most 2 wherever an online policy can (missesGoal). Slowdowns are against static-40, as in
// `ebb sim`. It replays three traces under five policies twice: a couple of
// minutes of CPU (it was 14 minutes for two traces before the placement
// pass and the timeout sweep stopped looking at every queued DAG and attempt
// per event), so -short skips it; the test command runs it.
func TestEbbNotDominated(t *testing.T) {
	if testing.Short() {
		t.Skip("replays three traces under five policies and two clouds; the test command runs it without -short")
	}
	peers := []string{"mr3", "spark-da", "k8s-ca"}
	traceCases := []struct {
		name, path string
		opts       trace.Options
	}{
		{"FB-2009", "swim_facebook/FB-2009_samples_24_times_1hr_0.tsv", trace.Options{}},
		{"Alibaba-2h", "alibaba_v2017_batch/cloudsimpy_jobs_v2017_derived.csv", trace.Options{WindowLength: 2 * time.Hour}},
		// Decima TPC-H as `ebb sim` replays it by default: each DAG once,
		// Poisson arrivals 25 s apart, seed 1.
		{"Decima-TPCH", "decima_tpch_spark_dags/tpch_dags_full.json.gz", trace.Options{Seed: 1}},
	}
	clouds := []struct {
		name string
		cfg  Config
	}{{"per-second", DefaultConfig()}, {"hourly", hourlyCloud()}}
	for _, tc := range traceCases {
		for _, c := range clouds {
			t.Run(tc.name+"/"+c.name, func(t *testing.T) {
				// Each subtest reads its own jobs, so the parallel runs
				// share nothing.
				t.Parallel()
				opts := tc.opts
				opts.Model = trace.DefaultModel()
				jobs, err := trace.Read(traces.Path(t, tc.path), "", opts)
				if err != nil {
					t.Fatal(err)
				}
				var runs []report.Run
				for _, name := range append([]string{"static-40", "oracle", "ebb"}, peers...) {
					p, err := ParsePolicy(name)
					if err != nil {
						t.Fatal(err)
					}
					rec, err := Run(jobs, c.cfg, p)
					if err != nil {
						t.Fatal(err)
					}
					runs = append(runs, rec.Run())
				}
				rep := report.Summarize(runs, "static-40")
				if d := dominatedBy(rep, "ebb", peers); len(d) > 0 {
					t.Errorf("ebb is dominated by %v", d)
				}
				if msg := missesGoal(rep, "ebb"); msg != "" {
					t.Error(msg)
				}
			})
		}
	}
}

// missesGoal checks the second goal: cost at most twice the
// oracle's at a p95 slowdown of at most 2. Where no policy that starts
// with no node can reach a p95 of 2 (its cold-start floor is above 2:
// Decima's first boot outlasts the arrival of more than 5% of its jobs)
// the goal cannot be met by any online policy and is not asked; the
// floor is reported instead.
func missesGoal(rep report.Report, policy string) string {
	for _, s := range rep.Policies {
		if s.Policy != policy {
			continue
		}
		switch {
		case s.P95SlowdownFloor > 2:
			return ""
		case s.CostToOracle > 2 || s.P95Slowdown > 2:
			return fmt.Sprintf("%s costs %.2f× the oracle at a p95 slowdown of %.2f; the goal is at most 2× at most 2 (floor %.2f)",
				policy, s.CostToOracle, s.P95Slowdown, s.P95SlowdownFloor)
		}
		return ""
	}
	return "no run of " + policy
}

// missesGoal on made-up figures.
func TestMissesGoal(t *testing.T) {
	rep := func(cost, p95, floor float64) report.Report {
		return report.Report{Policies: []report.Summary{{Policy: "ebb", CostToOracle: cost, P95Slowdown: p95, P95SlowdownFloor: floor}}}
	}
	for _, tc := range []struct {
		cost, p95, floor float64
		miss             bool
	}{
		{2, 2, 1, false},       // at the goal
		{2.01, 1, 1, true},     // too dear
		{1, 2.01, 1, true},     // too slow
		{0.1, 30, 4.08, false}, // out of any online policy's reach
	} {
		if got := missesGoal(rep(tc.cost, tc.p95, tc.floor), "ebb") != ""; got != tc.miss {
			t.Errorf("cost %.2f p95 %.2f floor %.2f: miss %v, want %v", tc.cost, tc.p95, tc.floor, got, tc.miss)
		}
	}
}

// dominatedBy itself, on made-up figures: only a peer better on both
// counts dominates; equal is not better.
func TestDominatedBy(t *testing.T) {
	rep := report.Report{Policies: []report.Summary{
		{Policy: "ebb", Cost: 10, P95Slowdown: 5},
		{Policy: "a", Cost: 9, P95Slowdown: 4},  // dominates
		{Policy: "b", Cost: 9, P95Slowdown: 6},  // cheaper, slower
		{Policy: "c", Cost: 10, P95Slowdown: 1}, // same cost
	}}
	if d := dominatedBy(rep, "ebb", []string{"a", "b", "c"}); len(d) != 1 || d[0][:1] != "a" {
		t.Errorf("dominated by %v, want a only", d)
	}
}
