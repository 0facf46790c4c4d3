package sim

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// The oracle on hand-computed cases. testConfig: 10,000 MB nodes, 100 s to
// provision, 3.6 an hour (0.001 a second). Job a at 0: three 5000 MB
// tasks of 100 s (15,000 MB: two nodes during [0, 100)); job b: one
// 5000 MB task of 50 s (one node). Node 1 serves the first 10,000 MB,
// node 2 the rest.
func TestOracleExactFigures(t *testing.T) {
	jobs := func(bAt time.Duration) []Job {
		return []Job{job("a", 0, 3, 5000, 100*time.Second, 10000), job("b", bAt, 1, 5000, 50*time.Second, 10000)}
	}
	hourly := testConfig()
	hourly.Cloud.BillingPeriod = time.Hour
	cases := []struct {
		name         string
		bAt          time.Duration
		cfg          Config
		nodeSeconds  float64
		paidSeconds  float64
		lastFinished time.Duration
	}{
		// b at 150: node 1 is busy [0,100) and [150,200). The gap (50 s)
		// is shorter than a boot (100 s), so it stays: requested at -100,
		// released at 200 = 300 s. Node 2: [-100, 100] = 200 s. 500 s.
		{"per second, short gap", 150 * time.Second, testConfig(), 500, 500, 200 * time.Second},
		// b at 250: the gap (150 s) is longer than a boot, so node 1 goes
		// at 100 (200 s) and a new node is requested at 150 for b's
		// [250, 300) (150 s). Node 2: 200 s. 550 s.
		{"per second, long gap", 250 * time.Second, testConfig(), 550, 550, 300 * time.Second},
		// Hourly, b at 150: node 1 is paid until -100 + 3600 = 3500 and
		// b's node would be requested at 50, so node 1 serves b; both nodes
		// are released at 3500, still empty. At the run's end (200) each
		// has lived 300 s and paid one hour: 600 node-seconds, 7200 paid.
		{"hourly", 150 * time.Second, hourly, 600, 7200, 200 * time.Second},
	}
	for _, c := range cases {
		r := runWith(t, jobs(c.bAt), "oracle", c.cfg)
		if r.NodeSeconds != c.nodeSeconds || r.PaidSeconds != c.paidSeconds {
			t.Errorf("%s: node-seconds %.0f, paid %.0f; want %.0f, %.0f", c.name, r.NodeSeconds, r.PaidSeconds, c.nodeSeconds, c.paidSeconds)
		}
		if want := c.paidSeconds * 0.001; r.Cost < want-1e-9 || r.Cost > want+1e-9 {
			t.Errorf("%s: cost %.4f, want %.4f", c.name, r.Cost, want)
		}
		for _, j := range r.Jobs {
			want := map[string]time.Duration{"a": 100 * time.Second, "b": 50 * time.Second}[j.ID]
			if !j.Completed || j.JCT() != want {
				t.Errorf("%s: job %s JCT %s, want %s", c.name, j.ID, j.JCT(), want)
			}
		}
		if last := r.Jobs[1].Finish; last != c.lastFinished {
			t.Errorf("%s: b ends at %s, want %s", c.name, last, c.lastFinished)
		}
	}
}

// A job runs along its critical path: map (one task, 30 s) → reduce (two
// tasks, 20 s and 40 s) over a scatter-gather edge ends at 30 + 40 = 70 s;
// with a one-to-one edge from a two-task map (10 s and 50 s) to a two-task
// reduce (40 s and 5 s), task 0 ends at 10 + 40 = 50 and task 1 at
// 50 + 5 = 55, so the job ends at 55 s, not 50 + 40 = 90.
func TestOracleCriticalPath(t *testing.T) {
	mk := func(id string, typ dag.EdgeType, mapD, redD []time.Duration) Job {
		ds := func(xs []time.Duration) []dag.Duration {
			var out []dag.Duration
			for _, x := range xs {
				out = append(out, dag.Duration(x))
			}
			return out
		}
		return Job{ID: id, Spec: &dag.Spec{Name: id, Group: dag.GroupSpec{Name: "g", WorkerMemoryMB: 10000},
			Vertices: []dag.VertexSpec{
				{Name: "map", Command: dag.Command{"sim"}, Parallelism: len(mapD), MemoryMB: 1000, SimDurations: ds(mapD)},
				{Name: "reduce", Command: dag.Command{"sim"}, Parallelism: len(redD), MemoryMB: 1000, SimDurations: ds(redD)},
			},
			Edges: []dag.EdgeSpec{{From: "map", To: "reduce", Type: typ}}}}
	}
	s := time.Second
	r := runOne(t, []Job{
		mk("sg", dag.ScatterGather, []time.Duration{30 * s}, []time.Duration{20 * s, 40 * s}),
		mk("oo", dag.OneToOne, []time.Duration{10 * s, 50 * s}, []time.Duration{40 * s, 5 * s}),
	}, "oracle")
	want := map[string]time.Duration{"sg": 70 * s, "oo": 55 * s}
	for _, j := range r.Jobs {
		if j.JCT() != want[j.ID] {
			t.Errorf("job %s JCT %s, want %s", j.ID, j.JCT(), want[j.ID])
		}
	}
}
