package sim

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// Slow start in the sim, by hand. Two maps of 10 s and 60 s at io 0.5, one
// reduce of 30 s whose shuffle phase takes io 1.0 and whose reduce phase
// io 0.1, on one node. Off: the maps share the node's I/O exactly (1.0),
// the reduce starts when the 60 s map ends and runs 30 s: 90 s after the
// start. At 0.05 (one map of two): the reduce starts when the 10 s map
// ends, in its shuffle phase, doing none of its work; beside it the 60 s
// map, with 50 s of work left, runs at 1 / (0.5 + 1.0) = 2/3 speed and
// takes 75 s, ending at 85 s; only then does the reduce do its 30 s: 115 s,
// 25 s later than without slow start. (A reduce that did its work while
// shuffling would end at 40 s, or with the I/O shared, earlier than 115.)
func TestSlowStartShufflePhase(t *testing.T) {
	mk := func() []Job {
		return []Job{{ID: "mr", Spec: &dag.Spec{Name: "mr",
			Group: dag.GroupSpec{Name: "g", WorkerMemoryMB: 10000, WorkerVCores: 1},
			Vertices: []dag.VertexSpec{
				{Name: "map", Command: dag.Command{"sim"}, Parallelism: 2, MemoryMB: 1000, Profile: &dag.Profile{IO: 0.5},
					SimDurations: []dag.Duration{dag.Duration(10 * time.Second), dag.Duration(60 * time.Second)}},
				{Name: "reduce", Command: dag.Command{"sim"}, Parallelism: 1, MemoryMB: 1000,
					ShuffleProfile: &dag.Profile{IO: 1.0}, ReduceProfile: &dag.Profile{IO: 0.1},
					SimDurations: []dag.Duration{dag.Duration(30 * time.Second)}},
			},
			Edges: []dag.EdgeSpec{{From: "map", To: "reduce", Type: dag.ScatterGather}},
		}}}
	}
	run := func(slowStart float64) time.Duration {
		p, err := ParsePolicy("static-1")
		if err != nil {
			t.Fatal(err)
		}
		p.Core.SlowStart = slowStart
		rec, err := Run(mk(), testConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		j := rec.Run().Jobs[0]
		if !j.Completed {
			t.Fatalf("slow start %g: the job did not complete", slowStart)
		}
		return j.Finish
	}
	if d := run(0.05) - run(0); d != 25*time.Second {
		t.Errorf("slow start ended %s after no slow start, want 25s (115 s vs 90 s)", d)
	}
}
