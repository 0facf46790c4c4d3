package sim

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/traces"
	"github.com/ebb-am/ebb/sim/trace"
)

// benchRun replays jobs once per b.N under each named policy.
func benchRun(b *testing.B, jobs []Job, cfg Config, policies ...string) {
	b.Helper()
	for i := 0; i < b.N; i++ {
		for _, name := range policies {
			p, err := ParsePolicy(name)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(jobs, cfg, p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAlibabaWindow replays the Alibaba 2017 two-hour window (as
// `ebb sim --window 2h`) under one policy per sub-benchmark: the window
// whose long queues made TestEbbNotDominated take minutes.
func BenchmarkAlibabaWindow(b *testing.B) {
	opts := trace.Options{WindowLength: 2 * time.Hour, Model: trace.DefaultModel()}
	jobs, err := trace.Read(traces.Path(b, "alibaba_v2017_batch/cloudsimpy_jobs_v2017_derived.csv"), "", opts)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"static-40", "mr3", "spark-da", "k8s-ca", "ebb"} {
		b.Run(name, func(b *testing.B) { benchRun(b, jobs, DefaultConfig(), name) })
	}
}

// day24k is the 24k-job day of scripts/bench/sim-24k.sh: both FB-2009 day
// files, each once as it is and once shifted by 12 hours (cyclically),
// 25,064 jobs in submit order. Why this day: see the script.
func day24k(b *testing.B) []Job {
	b.Helper()
	var jobs []Job
	for _, f := range []string{"0", "1"} {
		part, err := trace.Read(traces.Path(b, "swim_facebook/FB-2009_samples_24_times_1hr_"+f+".tsv"), "", trace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, j := range part {
			jobs = append(jobs, renamed(j, "f"+f+"-", 0), renamed(j, "f"+f+"-12h-", 12*time.Hour))
		}
	}
	sort.SliceStable(jobs, func(i, k int) bool { return jobs[i].Submit < jobs[k].Submit })
	return jobs
}

// BenchmarkDay24k replays the 24k-job day under the five policies
// (issue 13: at most 60 s and 1 GB on this machine; the script measures
// both on the binary).
func BenchmarkDay24k(b *testing.B) {
	jobs := day24k(b)
	b.ResetTimer()
	benchRun(b, jobs, DefaultConfig(), "static-40", "mr3", "spark-da", "k8s-ca", "ebb")
}

// renamed is j with its id (and DAG name, as the script's file gives
// them) tagged and its submit time shifted cyclically within the day.
func renamed(j Job, tag string, shift time.Duration) Job {
	spec := *j.Spec
	j.ID = tag + j.ID
	spec.Name = j.ID
	j.Spec = &spec
	j.Submit = (j.Submit + shift) % (24 * time.Hour)
	return j
}

// BenchmarkEbbTrace replays the trace named by EBB_BENCH_TRACE (any
// format trace.Read detects) under ebb on the hourly cloud: with
// -cpuprofile, where the policy's time goes at a size
// (scripts/bench/sim-sweep-300k.sh generates one). Skipped without it.
func BenchmarkEbbTrace(b *testing.B) {
	path := os.Getenv("EBB_BENCH_TRACE")
	if path == "" {
		b.Skip("set EBB_BENCH_TRACE to a trace file")
	}
	jobs, err := trace.Read(path, "", trace.Options{Model: trace.DefaultModel()})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	benchRun(b, jobs, hourlyCloud(), "ebb")
}
