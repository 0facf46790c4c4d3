package trace

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/traces"
)

// realTrace returns the path of a shared trace (internal/traces: beside
// the repository root; missing is a failure under CI=true).
func realTrace(tb testing.TB, rel string) string {
	tb.Helper()
	return traces.Path(tb, rel)
}

// traceStats summarises jobs for the count checks below.
type traceStats struct {
	jobs, vertices, tasks, singleVertex int
	last                                time.Duration
	taskSeconds                         float64
}

func statsOf(jobs []Job) traceStats {
	var s traceStats
	for _, j := range jobs {
		s.jobs++
		s.vertices += len(j.Spec.Vertices)
		if len(j.Spec.Vertices) == 1 {
			s.singleVertex++
		}
		n := 0
		for _, v := range j.Spec.Vertices {
			n += v.Parallelism
			for i := range v.Parallelism {
				d := v.SimDurations[0]
				if len(v.SimDurations) > 1 {
					d = v.SimDurations[i]
				}
				s.taskSeconds += d.D().Seconds()
			}
		}
		s.tasks += n
		s.last = max(s.last, j.Submit)
	}
	return s
}

// TestRealTraces checks what the shared traces turn into, against counts
// from their SOURCE.txt (jobs, tasks/vertices, the map-only share) and, for
// task totals, the figures measured when the default model was chosen.
func TestRealTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 14 MB of real traces (several seconds); run without -short")
	}
	cases := []struct {
		path                          string
		jobs, vertices, single, tasks int
	}{
		// SOURCE.txt: 5,894 jobs, 75% map-only (4,448 = 75.5%).
		{"swim_facebook/FB-2009_samples_24_times_1hr_0.tsv", 5894, 7340, 4448, 145400},
		// SOURCE.txt: 6,638 jobs, 73% map-only (4,833 = 72.8%).
		{"swim_facebook/FB-2009_samples_24_times_1hr_1.tsv", 6638, 8443, 4833, 216736},
		// SOURCE.txt: 31,756 tasks of 5,216 jobs.
		{"alibaba_v2017_batch/cloudsimpy_jobs_v2017_derived.csv", 5216, 31756, 645, 1810282},
		// 67,013 Terminated tasks, less 10 without a request.
		{"alibaba_v2017_batch/batch_task_v2017.csv", 11644, 67003, 3121, 5465189},
		// SOURCE.txt: 154 DAGs, 1,414 stages; 177,890 tasks before the
		// 2000-per-job cap.
		{"decima_tpch_spark_dags/tpch_dags_full.json.gz", 154, 1414, 0, 171518},
		{"decima_tpch_spark_dags/tpch_stage_summary.csv", 154, 1414, 0, 171518},
	}
	for _, c := range cases {
		p := realTrace(t, c.path)
		start := time.Now()
		jobs, err := Read(p, "", Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		s := statsOf(jobs)
		t.Logf("%s: %d jobs, %d vertices, %d single-vertex, %d tasks, %.0f task-hours, last submit %s, read in %s",
			c.path, s.jobs, s.vertices, s.singleVertex, s.tasks, s.taskSeconds/3600, s.last, took.Round(time.Millisecond))
		if s.jobs != c.jobs || s.vertices != c.vertices || s.singleVertex != c.single || s.tasks != c.tasks {
			t.Errorf("%s: %d jobs, %d vertices, %d single-vertex, %d tasks; want %d, %d, %d, %d",
				c.path, s.jobs, s.vertices, s.singleVertex, s.tasks, c.jobs, c.vertices, c.single, c.tasks)
		}
		for _, j := range jobs {
			for _, v := range j.Spec.Vertices {
				if v.Parallelism > DefaultModel().MaxTasksPerJob {
					t.Errorf("%s: job %s vertex %s has %d tasks, over the cap", c.path, j.ID, v.Name, v.Parallelism)
				}
			}
		}
	}
}

// TestDecimaFilesAgreeOnArrivals: with one seed the full DAGs and the
// stage summary give the same jobs at the same times.
func TestDecimaFilesAgreeOnArrivals(t *testing.T) {
	full, err := Read(realTrace(t, "decima_tpch_spark_dags/tpch_dags_full.json.gz"), "", Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Read(realTrace(t, "decima_tpch_spark_dags/tpch_stage_summary.csv"), "", Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range full {
		if full[i].ID != sum[i].ID || full[i].Submit != sum[i].Submit {
			t.Fatalf("job %d: %s@%s vs %s@%s", i, full[i].ID, full[i].Submit, sum[i].ID, sum[i].Submit)
		}
	}
}

// BenchmarkReadFBDay reads a whole FB-2009 day (5,894 jobs).
func BenchmarkReadFBDay(b *testing.B) {
	p := realTrace(b, "swim_facebook/FB-2009_samples_24_times_1hr_0.tsv")
	for b.Loop() {
		if _, err := Read(p, "", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
