package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// treeOf reads every file under root: relative path -> content.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// names lists a tree's files but the commit's marker (_ebb-commit-<staging
// id>: its name changes with every run).
func names(tree map[string]string) []string {
	var out []string
	for k := range tree {
		if !strings.HasPrefix(k, "_ebb-commit-") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func lineCount(tree map[string]string) int {
	n := 0
	for name, body := range tree {
		if strings.HasPrefix(name, "part-") {
			n += strings.Count(body, "\n")
		}
	}
	return n
}

// The rerun of issue 12, locally: word count with two reducers, then the
// same output again (refused at once, naming the directory and
// --overwrite, the old results untouched), then one reducer with
// --overwrite: exactly the new part file and _SUCCESS, 72 lines, every
// count right.
func TestLocalRerunIntoTheSameOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "wc-out")
	log, err := runEbb(t, "local", "run", "examples/wordcount.yaml", "--output", out)
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, log)
	}
	first := treeOf(t, out)
	if got := names(first); !reflect.DeepEqual(got, []string{"_SUCCESS", "part-00000", "part-00001"}) {
		t.Fatalf("first run left %v", got)
	}
	want := countWords(t, "../../examples/wordcount-input.txt")
	if lineCount(first) != len(want) || len(want) != 72 {
		t.Fatalf("first run: %d lines for %d distinct words, want 72", lineCount(first), len(want))
	}

	log, err = runEbb(t, "local", "run", "examples/wordcount.yaml", "--output", out)
	if err == nil {
		t.Fatalf("the second run into %s succeeded:\n%s", out, log)
	}
	if !strings.Contains(log, out) || !strings.Contains(log, "--overwrite") {
		t.Errorf("the refusal does not name %s and --overwrite:\n%s", out, log)
	}
	// At once: refused before an AM even started.
	if strings.Contains(log, "dag_") || strings.Contains(log, "AM at") {
		t.Errorf("the refused DAG was submitted:\n%s", log)
	}
	if got := treeOf(t, out); !reflect.DeepEqual(got, first) {
		t.Errorf("the refused run changed %s: %v", out, names(got))
	}

	input, _ := filepath.Abs("../../examples/wordcount-input.txt")
	oneReducer := filepath.Join(t.TempDir(), "wc1.yaml")
	spec, err := os.ReadFile("../../examples/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(spec), "parallelism: 2", "parallelism: 1", 1)
	s = strings.Replace(s, "[wordcount-input.txt]", fmt.Sprintf("[%q]", input), 1)
	if err := os.WriteFile(oneReducer, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err = runEbb(t, "local", "run", oneReducer, "--output", out, "--overwrite")
	if err != nil {
		t.Fatalf("run with --overwrite: %v\n%s", err, log)
	}
	second := treeOf(t, out)
	if got := names(second); !reflect.DeepEqual(got, []string{"_SUCCESS", "part-00000"}) {
		t.Fatalf("after the overwrite %s holds %v, want part-00000 and _SUCCESS", out, got)
	}
	if n := lineCount(second); n != 72 {
		t.Errorf("after the overwrite: %d lines, want 72", n)
	}
	sameCounts(t, readCounts(t, out), want)
}

// ebb local run without an output writes to ./ebb-output/<dag name>/ and
// says so.
func TestLocalRunDefaultOutput(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "hello.yaml")
	err := os.WriteFile(spec, []byte(`name: hello
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: say, command: "echo hi > $EBB_OUTPUT_DIR/part", parallelism: 1, memoryMB: 128}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd, cancel := ebbCommand("local", "run", spec)
	defer cancel()
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ebb local run: %v\n%s", err, b)
	}
	want := filepath.Join(dir, "ebb-output", "hello")
	if !strings.Contains(string(b), "output: "+want) {
		t.Errorf("ebb local run does not say the output is %s:\n%s", want, b)
	}
	got := treeOf(t, want)
	for name := range got {
		if strings.HasPrefix(name, "_ebb-commit-") {
			delete(got, name) // the commit's marker, named after its staging id
		}
	}
	if !reflect.DeepEqual(got, map[string]string{"part-00000": "hi\n", "_SUCCESS": ""}) {
		t.Errorf("%s holds %v", want, got)
	}
}

// A DAG killed half-way — one sink task committed into staging, the other
// still running — leaves the previous output byte-identical, and no
// _temporary, by the time its client hears KILLED.
func TestLocalKilledDAGLeavesThePreviousOutput(t *testing.T) {
	ta := startTestAM(t, 3*time.Minute)
	out := filepath.Join(ta.root, "wc-out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	previous := map[string]string{"part-00000": "a\t1\nb\t2\n", "part-00001": "c\t3\n", "_SUCCESS": ""}
	for name, body := range previous {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := `name: halfway
containerGroup: {name: hg, workerMemoryMB: 512}
vertices:
  - name: sink
    command: 'if [ "$EBB_TASK_INDEX" = 1 ]; then sleep 600; fi; echo new > "$EBB_OUTPUT_DIR/part"'
    parallelism: 2
    memoryMB: 128
`
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "halfway.yaml", Output: out, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ta.AM, "task 0 committed and task 1 running", time.Minute, func(v ui.View) bool {
		s := dagIn(v, id)
		staged, _ := filepath.Glob(filepath.Join(out, "_temporary", "*", "part-00000"))
		return len(s.Vertices) == 1 && s.Vertices[0].Succeeded == 1 && s.Vertices[0].Running == 1 && len(staged) == 1
	})
	if _, err := ta.Loop().Ask(ta.ctx, core.DAGKillRequested{ID: id, Reason: "killed by the test"}); err != nil {
		t.Fatal(err)
	}
	st, err := ta.WaitDAG(ta.ctx, id)
	if err != nil || st.State != core.DAGKilled {
		t.Fatalf("WaitDAG = %s %v, want KILLED", st.State, err)
	}
	if got := treeOf(t, out); !reflect.DeepEqual(got, previous) {
		t.Errorf("after the kill %s holds %v, want the previous output byte for byte", out, got)
	}
}

// ebb dag submit to a running AM: the second DAG into an output with
// results is refused naming it and --overwrite; --overwrite reaches the
// AM through the client API and replaces the results once the DAG is done.
func TestDAGSubmitOverwrite(t *testing.T) {
	ta := startTestAM(t, 2*time.Minute)
	session := filepath.Join(ta.root, "am.json")
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ta.ctx, ebbBin, args...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "EBB_SECRET=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out := filepath.Join(ta.root, "wc-out")
	submit := []string{"dag", "submit", "--session", session, "--wait", "--output", out, "examples/wordcount.yaml"}
	if log, err := run(submit...); err != nil {
		t.Fatalf("first DAG: %v\n%s", err, log)
	}
	first := treeOf(t, out)
	log, err := run(submit...)
	if err == nil || !strings.Contains(log, out) || !strings.Contains(log, "--overwrite") {
		t.Fatalf("second DAG into %s: %v, want a refusal naming it and --overwrite:\n%s", out, err, log)
	}
	if log, err := run(append(submit, "--overwrite")...); err != nil || !strings.Contains(log, "SUCCEEDED") {
		t.Fatalf("with --overwrite: %v\n%s", err, log)
	}
	if got := names(treeOf(t, out)); !reflect.DeepEqual(got, names(first)) {
		t.Errorf("after the overwrite %s holds %v, want %v", out, got, names(first))
	}
	sameCounts(t, readCounts(t, out), countWords(t, "../../examples/wordcount-input.txt"))
}
