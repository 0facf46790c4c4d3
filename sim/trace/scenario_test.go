package trace

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

func TestScenario(t *testing.T) {
	s, err := ReadScenario("testdata/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "two-jobs" || s.Nodes != 4 || s.NodeMemoryMB != 16384 || s.NodeVCores != 8 {
		t.Errorf("scenario %+v", s)
	}
	if len(s.Jobs) != 2 || s.Jobs[0].ID != "J1" || s.Jobs[1].ID != "J2" || s.Jobs[1].Submit != 90*time.Second {
		t.Fatalf("jobs %+v", s.Jobs)
	}
	j1 := s.Jobs[0].Spec
	if j1.Goal == nil || j1.Goal.Within.D() != 10*time.Minute {
		t.Errorf("J1 goal %+v, want within 10m", j1.Goal)
	}
	wantVertex(t, j1, "map", 2, 1024, 0, 10*time.Second, 20*time.Second)
	wantVertex(t, j1, "reduce", 1, 2048, 0, 30*time.Second)
	if p := vertexOf(t, j1, "map").Profile; p == nil || *p != (dag.Profile{CPU: 0.5, Memory: 0.25, IO: 0.1}) {
		t.Errorf("map profile %+v", p)
	}
	// Read gives the same jobs.
	jobs, err := Read("testdata/scenario.json", "", Options{})
	if err != nil || !reflect.DeepEqual(jobs, s.Jobs) {
		t.Errorf("Read = %v, %v; want the scenario's jobs", jobs, err)
	}
}

func TestScenarioErrors(t *testing.T) {
	// J2's 8192 MB vertex does not fit its 4096 MB workers; memoryMB is on
	// line 14 of the scenario file.
	_, err := ReadScenario("testdata/scenario_bad.json")
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("err %v, want *trace.Error", err)
	}
	if te.Line != 14 || te.Field != "jobs[1].dag.vertices[0].memoryMB" {
		t.Errorf("err %q: want line 14, field jobs[1].dag.vertices[0].memoryMB", err)
	}
	cases := map[string]struct{ body, want string }{
		"syntax":  {"{\n  \"name\": \"x\",\n  \"jobs\": [,]\n}", "bad.json:3: column 12"},
		"unknown": {"{\n \"name\": \"x\",\n \"nodez\": 3}", `bad.json:3: nodez: unknown field`},
		"type":    {"{\n \"nodes\": \"three\"}", `bad.json:2: nodes (column`},
		"no jobs": {`{"name": "x"}`, "jobs: a scenario needs at least one job"},
		"dup id": {`{"jobs": [{"id": "A", "dag": {"name": "a", "containerGroup": {"name": "g", "workerMemoryMB": 1}, "vertices": [{"name": "v", "command": "x", "parallelism": 1, "memoryMB": 1}]}},
 {"id": "A", "dag": {"name": "a", "containerGroup": {"name": "g", "workerMemoryMB": 1}, "vertices": [{"name": "v", "command": "x", "parallelism": 1, "memoryMB": 1}]}}]}`,
			`bad.json:2: jobs[1].id: "A": also the id of jobs[0]`},
		"submit":    {"{\"jobs\": [\n {\"id\": \"A\", \"submit\": \"soon\"}]}", `bad.json:2: submit: "soon": want a duration`},
		"neg nodes": {`{"nodes": -2, "jobs": []}`, `bad.json:1: nodes: "-2": want 0`},
	}
	for name, c := range cases {
		_, err := ParseScenario("bad.json", []byte(c.body))
		if err == nil || !contains(err.Error(), c.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want ErrFormat containing %q", name, err, c.want)
		}
	}
}
