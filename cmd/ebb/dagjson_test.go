package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/ui"
)

// `ebb dag status --json` prints the UI's own API answer: the list, and
// one DAG with its vertices and attempts.
func TestDAGStatusJSON(t *testing.T) {
	ta := startTestAM(t, 2*time.Minute)
	spec, err := os.ReadFile("../../examples/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := filepath.Abs("../../examples")
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: spec, SpecName: "wordcount.yaml", BaseDir: base, Output: filepath.Join(ta.root, "out")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ta.WaitDAG(ta.ctx, id); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(ta.root, "am.json")
	run := func(args ...string) []byte {
		t.Helper()
		out, err := exec.CommandContext(ta.ctx, ebbBin, args...).Output()
		if err != nil {
			t.Fatalf("ebb %v: %v", args, err)
		}
		return out
	}
	var list []ui.DAG
	if err := json.Unmarshal(run("dag", "status", "--json", "--session", session), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != id || list[0].State != "SUCCEEDED" || list[0].Progress != 1 {
		t.Fatalf("dag status --json: %+v", list)
	}
	var d ui.DAGDetail
	if err := json.Unmarshal(run("dag", "status", "--json", "--session", session, id), &d); err != nil {
		t.Fatal(err)
	}
	// Every task ran at least once; every attempt names its worker.
	if len(d.Vertices) != 2 || len(d.Attempts) < d.Tasks || d.Attempts[0].Worker == "" {
		t.Fatalf("dag status --json %s: %d vertices, %d attempts for %d tasks", id, len(d.Vertices), len(d.Attempts), d.Tasks)
	}
}
