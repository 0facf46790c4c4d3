package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The client commands against a running local AM: submit and wait, status,
// retune autoscaling, kill an unknown DAG; and a client with a wrong
// secret is turned away.
func TestClientCommands(t *testing.T) {
	ta := startTestAM(t, 2*time.Minute, "mr3.enable.auto.scaling=true")
	root, ctx := ta.root, ta.ctx
	session := filepath.Join(root, "am.json")
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, ebbBin, args...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "EBB_SECRET=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out := filepath.Join(root, "out")
	log, err := run("dag", "submit", "--session", session, "--wait", "--output", out, "examples/wordcount.yaml")
	if err != nil || !strings.Contains(log, "SUCCEEDED") {
		t.Fatalf("dag submit --wait: %v\n%s", err, log)
	}
	sameCounts(t, readCounts(t, out), countWords(t, "../../examples/wordcount-input.txt"))

	log, err = run("autoscale", "--session", session, "--out", "85", "--in", "40", "--min-hosts", "2")
	if err != nil || !strings.Contains(log, "scale out at 85%") {
		t.Fatalf("autoscale: %v\n%s", err, log)
	}
	log, err = run("autoscale", "--session", session, "--out", "40", "--in", "85", "--min-hosts", "1")
	if err == nil || !strings.Contains(log, "mr3.auto.scale.in.threshold.percent") {
		t.Fatalf("autoscale with in above out was accepted or did not name the key: %v\n%s", err, log)
	}
	// This AM does not size from the work in sight: a target would change
	// nothing, so it is refused, saying what it needs.
	log, err = run("autoscale", "--session", session, "--target", "1.5")
	if err == nil || !strings.Contains(log, "ebb.auto.scale.predictive.enabled=true") {
		t.Fatalf("autoscale --target on an AM that would not read it: %v\n%s", err, log)
	}
	log, err = run("dag", "status", "--session", session)
	if err != nil || !strings.Contains(log, "wordcount SUCCEEDED") || !strings.Contains(log, "group default") {
		t.Fatalf("dag status: %v\n%s", err, log)
	}
	if log, err = run("dag", "kill", "--session", session, "no_such_dag"); err == nil {
		t.Fatalf("killing an unknown DAG succeeded:\n%s", log)
	}
	bad := filepath.Join(root, "bad-secret")
	if err := os.WriteFile(bad, []byte("not-the-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err = run("dag", "status", "--session", session, "--secret-file", bad)
	if err == nil || !strings.Contains(log, "secret") {
		t.Fatalf("a wrong secret was not rejected: %v\n%s", err, log)
	}
}
