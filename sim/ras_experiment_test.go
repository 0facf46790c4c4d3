package sim

import (
	"fmt"
	"testing"

	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// The RAS experiment (issue 7's bar) on the scenario in the repository:
// ras finishes the workload faster than every static slot count K = 1..8,
// and meets every tight goal while the best static K misses some.
func TestRASBeatsStaticSlots(t *testing.T) {
	sc, err := trace.ReadScenario("../examples/sim/ras-paper-tight.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Cloud.Types[0].MemoryMB = sc.NodeMemoryMB
	run := func(name string) report.Summary {
		p, err := ParsePolicy(name)
		if err != nil {
			t.Fatal(err)
		}
		p.Static = sc.Nodes
		rec, err := Run(sc.Jobs, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		return report.Summarize([]report.Run{rec.Run()}, "").Policies[0]
	}
	ras := run("ras")
	if ras.JobsCompleted != 9 || ras.GoalAttainment != 1 {
		t.Fatalf("ras: %d jobs done, goals met %.2f: want 9 and all", ras.JobsCompleted, ras.GoalAttainment)
	}
	best := report.Summary{Makespan: 1e18}
	for k := 1; k <= 8; k++ {
		s := run(fmt.Sprintf("fair-slots-%d", k))
		if ras.Makespan >= s.Makespan {
			t.Errorf("ras makespan %.0f s is not below fair-slots-%d's %.0f s", ras.Makespan, k, s.Makespan)
		}
		if s.Makespan < best.Makespan {
			best = s
		}
	}
	if best.GoalAttainment >= 1 {
		t.Errorf("the best static configuration (%s, %.0f s) meets every tight goal: the goals do not test anything", best.Policy, best.Makespan)
	}
	t.Logf("ras %.0f s, all goals; best static %s %.0f s, %.0f%% of goals", ras.Makespan, best.Policy, best.Makespan, 100*best.GoalAttainment)
}
