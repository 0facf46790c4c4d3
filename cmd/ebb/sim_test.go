package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/traces"
	"github.com/ebb-am/ebb/sim/report"
)

// The acceptance invocation: one JSON object with, per policy,
// node_hours, lower_bound_node_hours, p95_slowdown and jobs_completed;
// every job completes under every policy; the plots land where it says.
func TestSimFBAcceptance(t *testing.T) {
	// Found beside the repository root; missing fails under CI=true.
	tr := traces.Path(t, "swim_facebook/FB-2009_samples_24_times_1hr_0.tsv")
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

// The per-job table: a job's completion time after submission, its goal,
// and a * for a miss or a job that did not complete.
func TestWritePerJob(t *testing.T) {
	s := time.Second
	runs := []report.Run{
		{Policy: "a", Jobs: []report.JobResult{
			{ID: "J1", Submit: 10 * s, Finish: 110 * s, Goal: 120 * s, Completed: true}, // 100 of 120: met
			{ID: "J2", Submit: 0, Finish: 200 * s, Goal: 150 * s, Completed: true},      // 200 of 150: missed
			{ID: "J3", Submit: 0, Finish: 50 * s, Completed: true},                      // no goal
		}},
		{Policy: "bb", Jobs: []report.JobResult{
			{ID: "J1", Submit: 10 * s, Finish: 0, Goal: 120 * s},
			{ID: "J2", Submit: 0, Finish: 150 * s, Goal: 150 * s, Completed: true}, // exactly on the goal: met
			{ID: "J3"},
		}},
	}
	var b strings.Builder
	if err := writePerJob(&b, runs); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Split(strings.TrimSpace(l), "  "); len(f) > 1 {
			var cells []string
			for _, c := range f {
				if c = strings.TrimSpace(c); c != "" {
					cells = append(cells, c)
				}
			}
			rows = append(rows, cells)
		}
	}
	want := [][]string{
		{"policy", "J1", "J2", "J3"},
		{"a", "100 / 120", "200 / 150*", "50"},
		{"bb", "-* / 120", "150 / 150", "-*"},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("per-job table:\n%s\nrows %q\nwant %q", b.String(), rows, want)
	}
}

func TestPerJobWithJSONIsRefused(t *testing.T) {
	err := runSim(io.Discard, io.Discard, simFlags{scenario: "x.json", perJob: true, jsonOut: true})
	if err == nil || !strings.Contains(err.Error(), "--per-job") {
		t.Fatalf("err = %v, want one naming --per-job", err)
	}
}
