package main

import (
	"encoding/json"
	"testing"
)

// `ebb sim --json` on the RAS paper's experiment 2 gives, per policy, each
// job's id, submission, finish, goal (the deadline from the run's start)
// and whether it met it, so the experiment can be checked by a script.
func TestSimJSONHasEachJob(t *testing.T) {
	out, err := runEbbStdout(t, "sim", "--scenario", "examples/sim/ras-paper-exp2.json", "--policies", "ras,fair-slots-4", "--json", "--plots", "")
	if err != nil {
		t.Fatalf("ebb sim: %v\n%s", err, out)
	}
	var rep struct {
		Policies []struct {
			Policy string `json:"policy"`
			Jobs   []struct {
				ID     string   `json:"id"`
				Submit float64  `json:"submit_secs"`
				Finish *float64 `json:"finish_secs"`
				Goal   *float64 `json:"goal_secs"`
				Met    *bool    `json:"met"`
			} `json:"job_results"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if len(rep.Policies) != 2 {
		t.Fatalf("%d policies, want 2", len(rep.Policies))
	}
	// J1 is submitted at 0 with the paper's goal of 3000 s; J8 at 2500 s
	// with 3400 s.
	want := map[string][2]float64{"J1": {0, 3000}, "J8": {2500, 3400}}
	for _, p := range rep.Policies {
		if len(p.Jobs) != 9 {
			t.Fatalf("%s: %d jobs, want the paper's 9", p.Policy, len(p.Jobs))
		}
		for _, j := range p.Jobs {
			if j.Finish == nil || j.Goal == nil || j.Met == nil {
				t.Fatalf("%s %s: finish %v goal %v met %v: want all three", p.Policy, j.ID, j.Finish, j.Goal, j.Met)
			}
			if *j.Met != (*j.Finish <= *j.Goal) {
				t.Errorf("%s %s: finished at %.0f, goal %.0f, met %v", p.Policy, j.ID, *j.Finish, *j.Goal, *j.Met)
			}
			if w, ok := want[j.ID]; ok && (j.Submit != w[0] || *j.Goal != w[1]) {
				t.Errorf("%s %s: submitted %.0f goal %.0f, want %.0f and %.0f", p.Policy, j.ID, j.Submit, *j.Goal, w[0], w[1])
			}
		}
	}
}
