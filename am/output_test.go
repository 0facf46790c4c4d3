package am

import (
	"context"
	"errors"
	"github.com/ebb-am/ebb/am/amconf"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/commit"
)

// wantWorld records how many workers the core asked for.
type wantWorld struct {
	nopWorld
	mu    sync.Mutex
	wants int
}

func (w *wantWorld) WantWorkers(_ time.Time, a core.WantWorkers) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wants += a.Total
}

// fakeCommitter records what the AM asked and can hold a promotion until
// the test lets it go.
type fakeCommitter struct {
	mu         sync.Mutex
	calls      []string
	promoteErr error
	gate       chan struct{} // Promote waits for it to close (nil: no wait)
}

func (f *fakeCommitter) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeCommitter) Check(string, bool) (bool, error) { return false, nil }

func (f *fakeCommitter) Promote(output, id string, overwrite bool) error {
	if f.gate != nil {
		<-f.gate
	}
	f.record("promote " + output)
	return f.promoteErr
}

func (f *fakeCommitter) Abort(output, id string, removeEmpty bool) error {
	f.record("abort " + output)
	return nil
}

func (f *fakeCommitter) Phase(string, string) (commit.Phase, error) { return commit.NotStarted, nil }

func (f *fakeCommitter) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

const oneSink = `
name: out
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 256}]
`

// startAM runs an AM with world w and committer c (nil: the real one on
// the local file system) until the test ends.
func startAM(t *testing.T, w World, c OutputCommitter) (*AM, context.Context) {
	t.Helper()
	log := logrus.New()
	log.SetOutput(io.Discard)
	a, err := New(Options{Listen: "127.0.0.1:0", Secret: "s", Log: log, Committer: c, Core: amconf.Defaults()})
	if err != nil {
		t.Fatal(err)
	}
	a.SetWorld(w)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the AM ended with %v", err)
		}
	})
	return a, ctx
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t *testing.T, root string) map[string]string {
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

// An output holding results is refused in Submit: the core never sees the
// DAG, so not one worker is asked for.
func TestRefusedOutputAsksForNoWorker(t *testing.T) {
	w := &wantWorld{}
	a, ctx := startAM(t, w, nil)
	out := filepath.Join(t.TempDir(), "wc-out")
	writeFiles(t, out, map[string]string{"part-00000": "old", "part-00001": "old", "_SUCCESS": ""})
	_, err := a.Submit(ctx, SubmitRequest{SpecName: "wc.yaml", Spec: []byte(oneSink), Output: out})
	var ee *commit.ExistsError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("Submit = %v, want an error naming %s and --overwrite", err, out)
	}
	var dags []core.DAGStatus
	if err := a.loop.View(ctx, func(v ui.View) { dags = v.DAGs() }); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	wants := w.wants
	w.mu.Unlock()
	if len(dags) != 0 || wants != 0 {
		t.Errorf("after the refusal the core has %d DAGs and wanted %d workers, want none", len(dags), wants)
	}
	// The same DAG into a fresh output does ask for workers (the check
	// above can tell).
	if _, err := a.Submit(ctx, SubmitRequest{SpecName: "wc.yaml", Spec: []byte(oneSink), Output: out + "-2"}); err != nil {
		t.Fatal(err)
	}
	if err := a.loop.View(ctx, func(ui.View) {}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wants == 0 {
		t.Error("a DAG into a fresh output asked for no worker")
	}
}

func TestOverwriteFromTheRequestOrTheSpec(t *testing.T) {
	a, ctx := startAM(t, nopWorld{}, nil)
	dir := t.TempDir()
	for i, r := range []SubmitRequest{
		{Spec: []byte(oneSink), Overwrite: true},
		{Spec: []byte(oneSink + "overwrite: true\n")},
	} {
		r.SpecName = "x.yaml"
		r.Output = filepath.Join(dir, string(rune('a'+i)))
		writeFiles(t, r.Output, map[string]string{"part-00000": "old"})
		if _, err := a.Submit(ctx, r); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
	// Overwriting the directory it reads would remove the DAG's inputs.
	in := filepath.Join(dir, "c")
	writeFiles(t, in, map[string]string{"input.txt": "words"})
	spec := strings.Replace(oneSink, `memoryMB: 256}`, `memoryMB: 256, inputs: [`+in+`/input.txt]}`, 1)
	_, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(spec), Output: in, Overwrite: true})
	if err == nil || !strings.Contains(err.Error(), "would overwrite") {
		t.Errorf("a DAG overwriting its own input: %v", err)
	}
}

func TestTwoDAGsNeverShareAnOutput(t *testing.T) {
	a, ctx := startAM(t, nopWorld{}, nil)
	out := filepath.Join(t.TempDir(), "out")
	first, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: out + "/", Overwrite: true})
	var ue *OutputInUseError
	if !errors.As(err, &ue) || ue.DAG != first {
		t.Fatalf("second DAG into %s: %v, want an *OutputInUseError naming %s", out, err, first)
	}
	// Once the first has ended (and its output settled) the output is free.
	if _, err := a.loop.Ask(ctx, core.DAGKillRequested{ID: first, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.WaitDAG(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: out}); err != nil {
		t.Errorf("after the first DAG ended: %v", err)
	}
}

// A DAG killed half-way (one sink task already committed into staging)
// leaves the previous output byte-identical, and its client hears KILLED
// only once the staged files are gone.
func TestKilledDAGLeavesTheOldOutput(t *testing.T) {
	a, ctx := startAM(t, nopWorld{}, nil)
	out := filepath.Join(t.TempDir(), "wc-out")
	old := map[string]string{"part-00000": "a\t1\n", "part-00001": "b\t2\n", "_SUCCESS": ""}
	writeFiles(t, out, old)
	id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: out, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	plan := a.outputPlans[id]
	a.mu.Unlock()
	staging := commit.Staging(out, plan.stagingID)
	writeFiles(t, staging, map[string]string{"part-00000": "new\t1\n", "_temporary/att_1/part-00001": "half"})
	if _, err := a.loop.Ask(ctx, core.DAGKillRequested{ID: id, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	s, err := a.WaitDAG(ctx, id)
	if err != nil || s.State != core.DAGKilled {
		t.Fatalf("WaitDAG = %v %v, want KILLED", s.State, err)
	}
	if got := readTree(t, out); !reflect.DeepEqual(got, old) {
		t.Errorf("after the kill %s holds %v, want the old %v", out, got, old)
	}
	if _, err := os.Stat(filepath.Join(out, commit.TempDir)); !os.IsNotExist(err) {
		t.Errorf("%s/_temporary is still there (%v)", out, err)
	}
}

// Clients hear SUCCEEDED only after the promotion: until then the DAG
// shows as RUNNING, committing.
func TestSucceededDAGIsPromotedBeforeClientsHear(t *testing.T) {
	fc := &fakeCommitter{gate: make(chan struct{})}
	a, ctx := startAM(t, nopWorld{}, fc)
	id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: "/data/out"})
	if err != nil {
		t.Fatal(err)
	}
	ended := core.DAGStatus{ID: id, Name: "out", State: core.DAGSucceeded, Output: "/data/out"}
	a.dagEnded(ended, nil) // as the loop does when the core ends the DAG
	if v := a.view(ended); v.State != core.DAGRunning || !strings.Contains(v.Diagnostics, "committing") {
		t.Errorf("while promoting, clients see %s %q; want RUNNING, committing", v.State, v.Diagnostics)
	}
	close(fc.gate)
	s, err := a.WaitDAG(ctx, id)
	if err != nil || s.State != core.DAGSucceeded {
		t.Fatalf("WaitDAG = %v %v", s.State, err)
	}
	if got := fc.recorded(); !reflect.DeepEqual(got, []string{"promote /data/out"}) {
		t.Errorf("committer calls %v, want one promotion", got)
	}
	if v := a.view(ended); v.State != core.DAGSucceeded {
		t.Errorf("after promoting, clients see %s", v.State)
	}
}

// A promotion that fails makes the DAG FAILED for its clients, with the
// reason, and its staged files are removed.
func TestFailedPromotionFailsTheDAG(t *testing.T) {
	fc := &fakeCommitter{promoteErr: errors.New("NameNode in safe mode")}
	a, ctx := startAM(t, nopWorld{}, fc)
	id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: "/data/out"})
	if err != nil {
		t.Fatal(err)
	}
	a.dagEnded(core.DAGStatus{ID: id, State: core.DAGSucceeded, Output: "/data/out"}, nil)
	s, err := a.WaitDAG(ctx, id)
	if err != nil || s.State != core.DAGFailed || !strings.Contains(s.Diagnostics, "safe mode") {
		t.Fatalf("WaitDAG = %v %q %v, want FAILED naming the cause", s.State, s.Diagnostics, err)
	}
	if got := fc.recorded(); !reflect.DeepEqual(got, []string{"promote /data/out", "abort /data/out"}) {
		t.Errorf("committer calls %v, want a promotion then an abort", got)
	}
}

// An AM that stops while a DAG runs removes what the DAG staged: nobody
// will promote it.
func TestStoppingAMRemovesStagedOutputs(t *testing.T) {
	a := runTestAM(t, Options{})
	ctx := a.ctx
	out := filepath.Join(t.TempDir(), "out")
	old := map[string]string{"part-00000": "old"}
	writeFiles(t, out, old)
	id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: out, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	staging := commit.Staging(out, a.outputPlans[id].stagingID)
	a.mu.Unlock()
	writeFiles(t, staging, map[string]string{"part-00001": "half"})
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, out); !reflect.DeepEqual(got, old) {
		t.Errorf("after the AM stopped %s holds %v, want %v", out, got, old)
	}
}

// flakyCommitter fails its first promotion as a NameNode away would.
type flakyCommitter struct {
	fakeCommitter
	fails int
}

func (f *flakyCommitter) Promote(output, id string, overwrite bool) error {
	f.record("promote " + output)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		return errors.New("no available namenodes: connection refused")
	}
	return nil
}

// The output's check at submission and its promotion go through
// Options.CommitRetry (on YARN, HDFS's retry policy): a promotion that
// failed as the NameNode restarted is called again and the DAG succeeds.
func TestPromotionGoesThroughCommitRetry(t *testing.T) {
	fc := &flakyCommitter{fails: 1}
	log := logrus.New()
	log.SetOutput(io.Discard)
	var whats []string
	retry := func(what string, f func() error) error {
		whats = append(whats, what)
		if err := f(); err != nil {
			return f() // the policy's one retry, here at once
		}
		return nil
	}
	a, err := New(Options{Listen: "127.0.0.1:0", Secret: "s", Log: log, Committer: fc, Core: amconf.Defaults(), CommitRetry: retry})
	if err != nil {
		t.Fatal(err)
	}
	a.SetWorld(nopWorld{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the AM ended with %v", err)
		}
	}()
	id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: "/data/out"})
	if err != nil {
		t.Fatal(err)
	}
	a.dagEnded(core.DAGStatus{ID: id, State: core.DAGSucceeded, Output: "/data/out"}, nil)
	if s, err := a.WaitDAG(ctx, id); err != nil || s.State != core.DAGSucceeded {
		t.Fatalf("WaitDAG = %v %q %v, want SUCCEEDED", s.State, s.Diagnostics, err)
	}
	if got := fc.recorded(); !reflect.DeepEqual(got, []string{"promote /data/out", "promote /data/out"}) {
		t.Errorf("committer calls %v, want the promotion twice", got)
	}
	if len(whats) != 2 || !strings.Contains(whats[0], "checking the output /data/out") || !strings.Contains(whats[1], "promoting the output /data/out") {
		t.Errorf("CommitRetry heard %v, want the check at submission and the promotion", whats)
	}
}
