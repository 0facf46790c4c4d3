package sim

import (
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
