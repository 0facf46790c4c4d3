package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/traces"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// RunAll gives what one Run after another gives, in the policies' order,
// though its replays share the jobs and run side by side. Run it with -race
// to hold that a replay only reads the jobs.
func TestRunAllMatchesRun(t *testing.T) {
	jobs, err := trace.Read(traces.Path(t, "swim_facebook/FB-2009_samples_24_times_1hr_0.tsv"), "", trace.Options{WindowLength: time.Hour, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var policies []Policy
	for _, name := range []string{"static-10", "oracle", "mr3", "ebb", "spark-da", "k8s-ca"} {
		p, err := ParsePolicy(name)
		if err != nil {
			t.Fatal(err)
		}
		policies = append(policies, p)
	}
	summary := func(runs []report.Run) []byte {
		var b bytes.Buffer
		if err := report.Summarize(runs, "static-10").WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	var one []report.Run
	for _, p := range policies {
		rec, err := Run(jobs, DefaultConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		one = append(one, rec.Run())
	}
	var side []report.Run
	for i, r := range RunAll(jobs, DefaultConfig(), policies, 0, nil) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if r.Policy.Name != policies[i].Name {
			t.Fatalf("result %d is %s, want %s", i, r.Policy.Name, policies[i].Name)
		}
		side = append(side, r.Rec.Run())
	}
	if a, b := summary(one), summary(side); !bytes.Equal(a, b) {
		t.Fatalf("side by side differs from one after another:\n%s\n---\n%s", b, a)
	}
}
