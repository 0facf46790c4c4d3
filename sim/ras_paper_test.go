package sim

import (
	"math"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// The RAS paper's Table 1: each job's length in isolation, with the whole
// 20-node cluster to itself (RAS-PAPER.md).
var rasPaperIsolation = map[string]time.Duration{
	"J1": 2500 * time.Second, "J8": 350 * time.Second, "J9": 250 * time.Second, // Sort
	"J2": 500 * time.Second, "J6": 750 * time.Second, "J7": 2500 * time.Second, // Combine
	"J3": 400 * time.Second, "J4": 280 * time.Second, "J5": 50 * time.Second, // Select
}

// rasPaperRun runs jobs under the named policy on the scenario's cluster.
func rasPaperRun(t *testing.T, sc *trace.Scenario, jobs []Job, policy string) report.Run {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Cloud.Types[0].MemoryMB = sc.NodeMemoryMB
	cfg.Cloud.Types[0].VCores = sc.NodeVCores
	p, err := ParsePolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	p.Static = sc.Nodes
	rec, err := Run(jobs, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Run()
}

// rasPaperMap is each application's one map duration, calibrated once
// (TestRASPaperCalibrate); rasPaperInputGB each job's input (Table 1).
var (
	rasPaperMap     = map[string]time.Duration{"sort": 45200 * time.Millisecond, "combine": 220100 * time.Millisecond, "select": 30 * time.Second}
	rasPaperInputGB = map[string]float64{"J1": 90, "J8": 19, "J9": 6, "J2": 5, "J6": 13, "J7": 50, "J3": 10, "J4": 25, "J5": 5}
)

// The paper's workload in both files: every instance of an application has
// the same map duration (fixed split size), the calibrated one; reduces
// grow with their input as the paper says: linearly for Combine and Select
// (from J7's 500 s for 50 GB and J4's 28 s for 25 GB: J2 5/50 x 500 = 50 s),
// as x ln x of the input per reduce x for Sort (J1's 20 reduces of 4608 MB:
// 833.3 s; J8's of 972.8 MB: 833.3 x 972.8 ln 972.8 / (4608 ln 4608) =
// 143.5 s).
func TestRASPaperWorkloadPerApplication(t *testing.T) {
	ref := map[string]struct {
		job    string
		reduce float64
	}{"sort": {"J1", 833.3}, "combine": {"J7", 500}, "select": {"J4", 28}}
	for _, file := range []string{"ras-paper-exp1.json", "ras-paper-exp2.json"} {
		sc, err := trace.ReadScenario("../examples/sim/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Nodes != 20 || len(sc.Jobs) != len(rasPaperIsolation) {
			t.Fatalf("%s: %d nodes, %d jobs: want the paper's 20 and 9", file, sc.Nodes, len(sc.Jobs))
		}
		for _, j := range sc.Jobs {
			app := rasPaperApp(j)
			maps, reduces := j.Spec.Vertices[0], j.Spec.Vertices[1]
			if len(maps.SimDurations) != 1 || maps.SimDurations[0].D() != rasPaperMap[app] {
				t.Errorf("%s: %s (%s) maps take %v, want the application's one %s", file, j.ID, app, maps.SimDurations, rasPaperMap[app])
			}
			r := ref[app]
			x, x0 := rasPaperInputGB[j.ID], rasPaperInputGB[r.job]
			want := r.reduce * x / x0
			if app == "sort" {
				per, per0 := x*1024/20, x0*1024/20
				want = r.reduce * per * math.Log(per) / (per0 * math.Log(per0))
			}
			if got := reduces.SimDurations[0].D().Seconds(); len(reduces.SimDurations) != 1 || math.Abs(got-want) > 0.05 {
				t.Errorf("%s: %s reduce takes %v, want %.1f s", file, j.ID, reduces.SimDurations, want)
			}
		}
	}
}

// Tightening one job's goal in the paper's mixed workload gives that job
// at least as many tasks at once and an earlier finish than the relaxed goal of
// experiment 1: the goal, not only utilisation, drives ras. J3 (Select,
// submitted at 200 s while J1 and J2 run) gets a goal of its length in
// isolation, 400 s after its submission, the tightest a job could meet
// with the cluster to itself. With the goal ignored both runs are the same
// run, and the test fails.
func TestRASTightGoalGivesTheJobMoreTasks(t *testing.T) {
	sc, err := trace.ReadScenario("../examples/sim/ras-paper-exp1.json")
	if err != nil {
		t.Fatal(err)
	}
	run := func(tight bool) (peak int, finish time.Duration) {
		jobs := append([]Job(nil), sc.Jobs...)
		for i, j := range jobs {
			if j.ID == "J3" && tight {
				spec := *j.Spec
				spec.Goal = &dag.Goal{Within: dag.Duration(rasPaperIsolation["J3"])}
				jobs[i].Spec = &spec
			}
		}
		cfg := DefaultConfig()
		cfg.Cloud.Types[0].MemoryMB = sc.NodeMemoryMB
		cfg.Cloud.Types[0].VCores = sc.NodeVCores
		p, err := ParsePolicy("ras")
		if err != nil {
			t.Fatal(err)
		}
		p.Static = sc.Nodes
		rec, err := Run(jobs, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range rec.Run().Jobs {
			if j.ID == "J3" {
				return rec.PeakRunning("J3"), j.Finish
			}
		}
		t.Fatal("J3 did not end")
		return 0, 0
	}
	relaxedPeak, relaxedFinish := run(false)
	tightPeak, tightFinish := run(true)
	t.Logf("J3: relaxed goal: %d tasks at most, finished at %s; goal of 400 s: %d, %s", relaxedPeak, relaxedFinish, tightPeak, tightFinish)
	// Since issue 25 both peaks can be what fits beside the other jobs'
	// planned slots (21 each): the goal shows in how long J3 keeps them.
	if tightPeak < relaxedPeak || tightFinish >= relaxedFinish {
		t.Errorf("J3 with a tight goal ran %d tasks at most and finished at %s; with a relaxed one %d and %s: want at least as many tasks and an earlier finish",
			tightPeak, tightFinish, relaxedPeak, relaxedFinish)
	}
}
