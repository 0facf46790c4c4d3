package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/local"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/amhost"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/internal/rolllog"
)

// ebbBin is the ebb binary built once for these tests: workers are real
// processes running it.
var ebbBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ebb-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ebbBin = filepath.Join(dir, "ebb")
	build := exec.Command("go", "build", "-o", ebbBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ebb:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// countWords is the test's own word counter, written apart from the
// wc-map/wc-reduce tasks: maximal runs of letters or digits, lower-cased.
func countWords(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(string(b), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		counts[strings.ToLower(w)]++
	}
	return counts
}

// readCounts reads every word\tcount line of the files in dir.
func readCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no part files in %s (%v)", dir, err)
	}
	got := map[string]int{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			word, n, ok := strings.Cut(sc.Text(), "\t")
			c, err := strconv.Atoi(n)
			if !ok || err != nil {
				t.Fatalf("%s: bad line %q", f, sc.Text())
			}
			if _, dup := got[word]; dup {
				t.Fatalf("%s: word %q appears in two reduce outputs", f, word)
			}
			got[word] = c
		}
		fh.Close()
	}
	return got
}

func sameCounts(t *testing.T, got, want map[string]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d distinct words, want %d", len(got), len(want))
	}
	var bad []string
	for w, n := range want {
		if got[w] != n {
			bad = append(bad, fmt.Sprintf("%s: got %d want %d", w, got[w], n))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("wrong counts: %s", strings.Join(bad, "; "))
	}
}

// runEbb runs the built binary from the repository root, as a user
// would, and returns what it printed on stdout and stderr together.
func runEbb(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd, cancel := ebbCommand(args...)
	defer cancel()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runEbbStdout is runEbb for output meant for programs: stdout alone
// (stderr is returned in the error).
func runEbbStdout(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd, cancel := ebbCommand(args...)
	defer cancel()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	return string(out), err
}

func ebbCommand(args ...string) (*exec.Cmd, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, ebbBin, args...)
	cmd.Dir = "../.." // the repository root, as a user would run it
	cmd.Env = append(os.Environ(), "HADOOP_CONF_DIR=", "EBB_CONF_DIR=")
	return cmd, cancel
}

func TestLocalWordCount(t *testing.T) {
	out := t.TempDir() + "/out"
	log, err := runEbb(t, "local", "run", "examples/wordcount.yaml", "--output", out)
	if err != nil {
		t.Fatalf("ebb local run: %v\n%s", err, log)
	}
	if !strings.Contains(log, "SUCCEEDED") || !strings.Contains(log, out) {
		t.Errorf("output does not say where the results are:\n%s", log)
	}
	sameCounts(t, readCounts(t, out), countWords(t, "../../examples/wordcount-input.txt"))
}

func TestLocalDiamond(t *testing.T) {
	out := t.TempDir() + "/out"
	log, err := runEbb(t, "local", "run", "examples/diamond.yaml", "--output", out)
	if err != nil {
		t.Fatalf("ebb local run: %v\n%s", err, log)
	}
	want := countWords(t, "../../examples/wordcount-input.txt")
	for w := range want {
		want[w] *= 2 // total reads each count once through sums and once through copy
	}
	sameCounts(t, readCounts(t, out), want)
}

func TestLocalBadDAGExitsNonZero(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "cycle.yaml")
	err := os.WriteFile(bad, []byte(`name: c
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: a, command: "true", parallelism: 1, memoryMB: 128}
  - {name: b, command: "true", parallelism: 1, memoryMB: 128}
edges:
  - {from: a, to: b, type: one-to-one}
  - {from: b, to: a, type: one-to-one}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	log, err := runEbb(t, "local", "run", bad)
	if err == nil {
		t.Fatalf("a DAG with a cycle succeeded:\n%s", log)
	}
	if !strings.Contains(log, bad+":8: edges[1]: cycle: a -> b -> a") {
		t.Fatalf("error does not name file, line and cycle:\n%s", log)
	}
}

// dagIn is a DAG's status as the view sees it (zero when unknown).
func dagIn(v ui.View, id string) core.DAGStatus {
	d, _ := v.DAGView(id)
	return d.DAGStatus
}

// waitFor polls cond on the AM loop until it holds or the deadline passes.
func waitFor(t *testing.T, a *am.AM, what string, d time.Duration, cond func(v ui.View) bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ok := false
		if err := a.Loop().View(context.Background(), func(v ui.View) { ok = cond(v) }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
	t.Fatalf("timed out after %s waiting for %s", d, what)
}

// Killing a worker process in the middle of a DAG: its running attempts
// are retried and the map outputs it held are recomputed; the result is
// still exact.
func TestLocalKillWorkerMidDAG(t *testing.T) {
	input, _ := filepath.Abs("../../examples/wordcount-input.txt")
	spec := fmt.Sprintf(`name: killme
containerGroup: {name: kg, workerMemoryMB: 512}
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 4, memoryMB: 256, inputs: [%q]}
  - name: reduce
    command: [/bin/sh, -c, "sleep 2 && exec %s task wc-reduce"]
    parallelism: 2
    memoryMB: 256
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, input, ebbBin)
	ta := startTestAM(t, 3*time.Minute, "ebb.local.max.nodes=4", "ebb.local.node.memory.mb=1024")
	a, world, root, ctx := ta.AM, ta.world, ta.root, ta.ctx

	out := filepath.Join(root, "out")
	id, err := a.Submit(ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "killme.yaml", Output: out})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the reducers run, so the map outputs are needed.
	waitFor(t, a, "reduce attempts running", time.Minute, func(v ui.View) bool {
		s := dagIn(v, id)
		return len(s.Vertices) == 2 && s.Vertices[1].Running > 0
	})
	var victim string
	var pid int
	err = a.Loop().View(ctx, func(ui.View) {
		for _, n := range world.Nodes() {
			for _, w := range n.Workers {
				if p, ok := world.PID(w); ok && victim == "" {
					victim, pid = w, p
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if victim == "" {
		t.Fatal("no worker process to kill")
	}
	t.Logf("killing worker %s (pid %d)", victim, pid)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st, err := a.WaitDAG(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != core.DAGSucceeded {
		t.Fatalf("DAG %s: %s", st.State, st.Diagnostics)
	}
	sameCounts(t, readCounts(t, out), countWords(t, input))
}

// testAM is an AM with the local world running in this process, whose
// workers are real processes of the built ebb binary.
type testAM struct {
	*am.AM
	world *local.World
	root  string
	ctx   context.Context
}

// startTestAM starts one with the given --set overrides (no site files,
// no environment) and stops it when the test ends.
func startTestAM(t *testing.T, timeout time.Duration, sets ...string) *testAM {
	t.Helper()
	t.Setenv("EBB_EXECUTABLE", ebbBin)
	t.Setenv("HADOOP_CONF_DIR", "")
	t.Setenv("EBB_CONF_DIR", "")
	cf := confFlags{sets: sets}
	c, err := cf.load(newLogger("warn", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	log := newQuietLogger(filepath.Join(root, "logs"), "am.log", rolllog.Roll{}, testing.Verbose())
	a, world, err := startLocal(context.Background(), c, log, root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Logf("the AM after the test: %v", err) // no verdict on the test
		}
	})
	return &testAM{AM: a, world: world, root: root, ctx: ctx}
}

// startLocal starts a local AM as `ebb local run` does.
func startLocal(ctx context.Context, c *conf.Config, log *logrus.Logger, root string) (*am.AM, *local.World, error) {
	env, err := localEnv()
	if err != nil {
		return nil, nil, err
	}
	return amhost.StartLocal(ctx, c, env, log, root)
}
