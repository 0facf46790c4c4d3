package report

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	xs := []float64{40, 15, 50, 35, 20} // sorted: 15 20 35 40 50
	for _, c := range []struct{ p, want float64 }{
		{5, 15},   // rank ceil(0.25) = 1
		{30, 20},  // rank ceil(1.5) = 2
		{40, 20},  // rank ceil(2.0) = 2
		{50, 35},  // rank ceil(2.5) = 3
		{95, 50},  // rank ceil(4.75) = 5
		{100, 50}, // rank 5
	} {
		if got := Percentile(xs, c.p); got != c.want {
			t.Errorf("p%g = %g, want %g", c.p, got, c.want)
		}
	}
	if xs[0] != 40 {
		t.Error("Percentile sorted its input in place")
	}
	// 95% of 20 values is rank 19 exactly (not 20 through float error).
	var twenty []float64
	for i := 1; i <= 20; i++ {
		twenty = append(twenty, float64(i))
	}
	if got := Percentile(twenty, 95); got != 19 {
		t.Errorf("p95 of 1..20 = %g, want 19", got)
	}
	for _, bad := range []float64{0, -5, 101} {
		if got := Percentile(xs, bad); !math.IsNaN(got) {
			t.Errorf("p%g = %g, want NaN", bad, got)
		}
	}
	if !math.IsNaN(Percentile(nil, 50)) || !math.IsNaN(Mean(nil)) {
		t.Error("no values: want NaN")
	}
	if got := Mean([]float64{1, 2, 6}); got != 3 {
		t.Errorf("mean %g, want 3", got)
	}
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func job(id string, submit, finish, goal float64, done bool) JobResult {
	return JobResult{ID: id, Submit: secs(submit), Finish: secs(finish), Goal: secs(goal), Completed: done}
}

// runs are two policies whose figures are worked out by hand below.
func runs() []Run {
	return []Run{
		{
			Policy: "ebb",
			Jobs: []JobResult{
				job("A", 0, 150, 200, true), // JCT 150, goal met
				job("B", 10, 90, 60, true),  // JCT 80, goal 60 missed
				job("C", 20, 60, 0, true),   // JCT 40
				job("D", 30, 0, 100, false), // never finished: goal missed
			},
			Samples: []Sample{
				{At: 0, Nodes: 1, UsedMB: 1024, CapacityMB: 4096},
				{At: time.Minute, Nodes: 2, UsedMB: 6144, CapacityMB: 8192},
				{At: 2 * time.Minute, Nodes: 1, UsedMB: 0, CapacityMB: 4096},
			},
			// Two hours of node life billed hourly as three (a node
			// that lived 1.5 h pays two, another 0.5 h pays one).
			NodeSeconds: 7200, PaidSeconds: 10800, Cost: 1.5,
			TaskMBSeconds: 4096 * 1800, NodeMemoryMB: 4096,
			FirstNode: time.Minute, // it starts with no node
		},
		{
			Policy: "static-2",
			Jobs: []JobResult{
				job("A", 0, 100, 200, true), // JCT 100
				job("B", 10, 30, 60, true),  // JCT 20
				job("C", 20, 60, 0, true),   // JCT 40
				job("D", 30, 50, 100, true), // JCT 20
			},
			NodeSeconds: 3600, PaidSeconds: 3600, Cost: 0.75,
		},
	}
}

// oracleRun is a clairvoyant run costing 0.5: ebb's 1.5 is 3 times it,
// static-2's 0.75 is 1.5 times.
var oracleRun = Run{Policy: "oracle", NodeSeconds: 1800, PaidSeconds: 1800, Cost: 0.5,
	Jobs: []JobResult{job("A", 0, 100, 0, true)}}

func TestSummarize(t *testing.T) {
	r := Summarize(append(runs(), oracleRun), "static")
	if r.Reference != "static-2" || r.Oracle != "oracle" || len(r.Policies) != 3 {
		t.Fatalf("reference %q, oracle %q, %d policies; want static-2, oracle, 3", r.Reference, r.Oracle, len(r.Policies))
	}
	e := r.Policies[0]
	want := Summary{
		Policy: "ebb", Jobs: 4, JobsCompleted: 3,
		NodeHours: 2, Cost: 1.5, // 7200 s
		PaidHours: 3, CostToOracle: 3, // 10800 s; 1.5 / 0.5
		MeanJCT: 90, // (150 + 80 + 40) / 3
		P95JCT:  150,
		// slowdowns 150/100, 80/20, 40/40 = 1.5, 4, 1: rank ceil(2.85) = 3.
		P95Slowdown: 4,
		// Nothing runs before 60 s: (max(s, 60) − s + ref) / ref over the
		// jobs static-2 completed: A (60+100)/100 = 1.6, B (50+20)/20 =
		// 3.5, C (40+40)/40 = 2, D (30+20)/20 = 2.5; rank 4 of 4 -> 3.5.
		P95SlowdownFloor: 3.5,
		JobsWithGoals:    3, GoalAttainment: 1.0 / 3, // A met; B late; D unfinished
		// (1024 + 6144 + 0) / (4096 + 8192 + 4096) = 7168 / 16384.
		MeanUtilisation: 0.4375,
		// 4096 MB x 1800 s / 4096 MB / 3600 = 0.5 node-hours; 2 / 0.5 = 4.
		LowerBoundNodeHours: 0.5, RatioToLowerBound: 4,
		RatioPaidToLB: 6,   // 3 paid hours / 0.5
		Makespan:      150, // A, the last completed job, ends at 150 s
	}
	if e != want {
		t.Errorf("ebb:\n got %+v\nwant %+v", e, want)
	}
	s := r.Policies[1]
	// JCTs 100, 20, 40, 20: mean 45, p95 rank ceil(3.8) = 4 -> 100; every
	// slowdown against itself is 1; all three goals met.
	if s.MeanJCT != 45 || s.P95JCT != 100 || s.P95Slowdown != 1 || s.P95SlowdownFloor != 1 || s.GoalAttainment != 1 || s.NodeHours != 1 ||
		s.PaidHours != 1 || s.CostToOracle != 1.5 {
		t.Errorf("static-2: %+v", s)
	}
	// No samples, no node memory: nothing to measure.
	if !math.IsNaN(s.MeanUtilisation) || !math.IsNaN(s.LowerBoundNodeHours) || !math.IsNaN(s.RatioToLowerBound) {
		t.Errorf("static-2 utilisation and lower bound should be NaN: %+v", s)
	}
	// An unknown reference leaves slowdowns unmeasured.
	none := Summarize(runs(), "static-99")
	if none.Reference != "" || none.Oracle != "" || !math.IsNaN(none.Policies[0].P95Slowdown) ||
		!math.IsNaN(none.Policies[0].CostToOracle) {
		t.Errorf("unknown reference: %q, p95 slowdown %g", none.Reference, none.Policies[0].P95Slowdown)
	}
	// An exact name wins over the prefix rule.
	if got := Summarize(runs(), "ebb").Reference; got != "ebb" {
		t.Errorf("reference ebb resolved to %q", got)
	}
}

// Makespans: ebb's last completed job (A) ends at 150 s; static-2's (A) at
// 100 s. Per job, goal_secs is the deadline from the start (submission +
// goal): ebb's A meets 200 at 150; B misses 10 + 60 = 70 at 90; C has no
// goal; D never finished, so misses 130.
const wantJSON = `{
  "reference": "static-2",
  "oracle": "",
  "policies": [
    {
      "policy": "ebb",
      "jobs": 4,
      "jobs_completed": 3,
      "node_hours": 2.000000,
      "paid_hours": 3.000000,
      "cost": 1.500000,
      "cost_to_oracle": null,
      "mean_jct_secs": 90.000000,
      "p95_jct_secs": 150.000000,
      "p95_slowdown": 4.000000,
      "p95_slowdown_floor": 3.500000,
      "jobs_with_goals": 3,
      "goal_attainment": 0.333333,
      "mean_utilisation": 0.437500,
      "lower_bound_node_hours": 0.500000,
      "ratio_to_lower_bound": 4.000000,
      "ratio_paid_to_lower_bound": 6.000000,
      "makespan_secs": 150.000000,
      "job_results": [
        {
          "id": "A",
          "submit_secs": 0.000000,
          "finish_secs": 150.000000,
          "goal_secs": 200.000000,
          "completed": true,
          "met": true
        },
        {
          "id": "B",
          "submit_secs": 10.000000,
          "finish_secs": 90.000000,
          "goal_secs": 70.000000,
          "completed": true,
          "met": false
        },
        {
          "id": "C",
          "submit_secs": 20.000000,
          "finish_secs": 60.000000,
          "goal_secs": null,
          "completed": true,
          "met": null
        },
        {
          "id": "D",
          "submit_secs": 30.000000,
          "finish_secs": null,
          "goal_secs": 130.000000,
          "completed": false,
          "met": false
        }
      ]
    },
    {
      "policy": "static-2",
      "jobs": 4,
      "jobs_completed": 4,
      "node_hours": 1.000000,
      "paid_hours": 1.000000,
      "cost": 0.750000,
      "cost_to_oracle": null,
      "mean_jct_secs": 45.000000,
      "p95_jct_secs": 100.000000,
      "p95_slowdown": 1.000000,
      "p95_slowdown_floor": 1.000000,
      "jobs_with_goals": 3,
      "goal_attainment": 1.000000,
      "mean_utilisation": null,
      "lower_bound_node_hours": null,
      "ratio_to_lower_bound": null,
      "ratio_paid_to_lower_bound": null,
      "makespan_secs": 100.000000,
      "job_results": [
        {
          "id": "A",
          "submit_secs": 0.000000,
          "finish_secs": 100.000000,
          "goal_secs": 200.000000,
          "completed": true,
          "met": true
        },
        {
          "id": "B",
          "submit_secs": 10.000000,
          "finish_secs": 30.000000,
          "goal_secs": 70.000000,
          "completed": true,
          "met": true
        },
        {
          "id": "C",
          "submit_secs": 20.000000,
          "finish_secs": 60.000000,
          "goal_secs": null,
          "completed": true,
          "met": null
        },
        {
          "id": "D",
          "submit_secs": 30.000000,
          "finish_secs": 50.000000,
          "goal_secs": 130.000000,
          "completed": true,
          "met": true
        }
      ]
    }
  ]
}
`

func TestWriteJSON(t *testing.T) {
	var a, b bytes.Buffer
	if err := Summarize(runs(), "static-2").WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if a.String() != wantJSON {
		t.Errorf("JSON:\n%s\nwant:\n%s", a.String(), wantJSON)
	}
	_ = Summarize(runs(), "static-2").WriteJSON(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same runs differ")
	}
	var empty bytes.Buffer
	_ = Summarize(nil, "").WriteJSON(&empty)
	if empty.String() != "{\n  \"reference\": \"\",\n  \"oracle\": \"\",\n  \"policies\": []\n}\n" {
		t.Errorf("empty report: %q", empty.String())
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := Summarize(runs(), "static-2").WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("table has %d lines, want header, 2 policies, footer:\n%s", len(lines), b.String())
	}
	for _, want := range []string{"ebb", "3/4", "2.00", "3.00", "1.50", "90.0", "150.0", "4.00", "3.50", "33.3% of 3", "43.8%", "0.50", "6.00"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("ebb row %q lacks %q", lines[1], want)
		}
	}
	if fields := strings.Fields(lines[2]); fields[len(fields)-1] != "-" || fields[len(fields)-3] != "-" {
		t.Errorf("static-2 row %q: want '-' for unmeasured figures", lines[2])
	}
	if !strings.Contains(lines[3], "against static-2") {
		t.Errorf("footer %q", lines[3])
	}
}

func TestWritePlots(t *testing.T) {
	dir := t.TempDir() + "/plots"
	rs := runs()
	rs = append(rs, Run{Policy: "no-samples"}) // an empty line must not break the plot
	files, err := Summarize(rs, "static").WritePlots(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dir + "/nodes.png", dir + "/nodes.svg", dir + "/utilisation.png", dir + "/utilisation.svg"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", files, want)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(f, ".png") && !bytes.HasPrefix(data, []byte("\x89PNG")):
			t.Errorf("%s is not a PNG", f)
		case strings.HasSuffix(f, ".svg") && !bytes.Contains(data[:min(len(data), 200)], []byte("<svg")):
			t.Errorf("%s is not an SVG", f)
		case strings.HasSuffix(f, ".svg") && !bytes.Contains(data, []byte("static-2")):
			t.Errorf("%s has no legend entry for static-2", f)
		}
	}
}
