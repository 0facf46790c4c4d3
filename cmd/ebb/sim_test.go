package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The acceptance invocation: one JSON object with, per policy,
// node_hours, lower_bound_node_hours, p95_slowdown and jobs_completed;
// every job completes under every policy; the plots land where it says.
func TestSimFBAcceptance(t *testing.T) {
	const tr = "../shared/traces/swim_facebook/FB-2009_samples_24_times_1hr_0.tsv"
	if _, err := os.Stat(filepath.Join("../..", tr)); err != nil {
		t.Skipf("the shared traces are not beside the repository: %v", err)
	}
	plots := t.TempDir()
	cmdOut, err := runEbbStdout(t, "sim", "--trace", tr, "--policies", "static-40,mr3,spark-da,k8s-ca,ebb", "--json", "--plots", plots)
	if err != nil {
		t.Fatalf("ebb sim: %v\n%s", err, cmdOut)
	}
	var rep struct {
		Policies []map[string]any `json:"policies"`
	}
	if err := json.Unmarshal([]byte(cmdOut), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, cmdOut)
	}
	if len(rep.Policies) != 5 {
		t.Fatalf("%d policies", len(rep.Policies))
	}
	for _, p := range rep.Policies {
		for _, k := range []string{"node_hours", "lower_bound_node_hours", "p95_slowdown", "jobs_completed"} {
			if _, ok := p[k]; !ok {
				t.Errorf("policy %v lacks %s", p["policy"], k)
			}
		}
		if p["jobs_completed"] != p["jobs"] {
			t.Errorf("policy %v completed %v of %v jobs", p["policy"], p["jobs_completed"], p["jobs"])
		}
	}
	for _, f := range []string{"nodes.png", "utilisation.png"} {
		if _, err := os.Stat(filepath.Join(plots, f)); err != nil {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}
