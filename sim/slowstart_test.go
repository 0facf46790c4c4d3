package sim

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// Slow start in the sim, by hand. One map of 10 s and n-1 of 60 s, one
// reduce of 30 s whose shuffle profile has I/O 1.0 (the most it uses, with
// 5 or more maps to copy from) and whose reduce profile I/O 0.1, on one
// node. Off: no I/O sum passes 1.0, the reduce starts when the 60 s maps
// end and runs 30 s, 90 s after the start. At 0.05 the reduce starts when
// the 10 s map ends, doing none of its work while it shuffles, and loads
// the node with min(maps running, 5) / 5 of its shuffle I/O:
//   - 6 maps at I/O 0.15: five run beside it, so it takes all 1.0; the I/O
//     sum is 0.75 + 1.0 = 1.75 and each map's 50 s of work left takes
//     87.5 s, to 97.5 s; then the reduce's 30 s: 127.5 s, 37.5 s later;
//   - 3 maps at I/O 0.3: two run beside it, so it takes 2/5 of 1.0; the
//     sum is 0.6 + 0.4 = 1.0, nobody slows, and the job ends at 90 s as
//     without slow start (a flat shuffle load of 1.0 would make it 120 s).
func TestSlowStartShufflePhase(t *testing.T) {
	mk := func(maps int, io float64) []Job {
		durs := []dag.Duration{dag.Duration(10 * time.Second)}
		for i := 1; i < maps; i++ {
			durs = append(durs, dag.Duration(60*time.Second))
		}
		return []Job{{ID: "mr", Spec: &dag.Spec{Name: "mr",
			Group: dag.GroupSpec{Name: "g", WorkerMemoryMB: 10000, WorkerVCores: 1},
			Vertices: []dag.VertexSpec{
				{Name: "map", Command: dag.Command{"sim"}, Parallelism: maps, MemoryMB: 1000, Profile: &dag.Profile{IO: io}, SimDurations: durs},
				{Name: "reduce", Command: dag.Command{"sim"}, Parallelism: 1, MemoryMB: 1000,
					ShuffleProfile: &dag.Profile{IO: 1.0}, ReduceProfile: &dag.Profile{IO: 0.1},
					SimDurations: []dag.Duration{dag.Duration(30 * time.Second)}},
			},
			Edges: []dag.EdgeSpec{{From: "map", To: "reduce", Type: dag.ScatterGather}},
		}}}
	}
	run := func(jobs []Job, slowStart float64) time.Duration {
		p, err := ParsePolicy("static-1")
		if err != nil {
			t.Fatal(err)
		}
		p.Core.SlowStart = slowStart
		rec, err := Run(jobs, testConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		j := rec.Run().Jobs[0]
		if !j.Completed {
			t.Fatalf("slow start %g: the job did not complete", slowStart)
		}
		return j.Finish
	}
	for _, c := range []struct {
		maps  int
		io    float64
		later time.Duration
	}{
		{6, 0.15, 37500 * time.Millisecond},
		{3, 0.3, 0},
	} {
		if d := run(mk(c.maps, c.io), 0.05) - run(mk(c.maps, c.io), 0); d != c.later {
			t.Errorf("%d maps at I/O %g: slow start ended %s after no slow start, want %s", c.maps, c.io, d, c.later)
		}
	}
}
