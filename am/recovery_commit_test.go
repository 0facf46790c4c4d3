package am

import (
	"github.com/ebb-am/ebb/am/amconf"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/recoverylog"
)

// recoverCommitted runs a new AM attempt's recovery over a log in which a
// DAG writing out (with overwrite) was accepted and every task succeeded,
// but whose end the log never heard.
func recoverCommitted(t *testing.T, out string) (*AM, core.DAGStatus) {
	t.Helper()
	d, all, _, _, err := recovery.Open(recovery.LocalFS{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := recovery.NewRecorder(d, all, time.Millisecond, nil)
	t.Cleanup(func() { _ = r.Close() })
	a, err := New(Options{Secret: "s", Listen: "127.0.0.1:0", Recovery: &Recovery{Recorder: r}, Core: amconf.Defaults()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.lis.Close() })
	recs := []recoverylog.Record{
		{DAGAccepted: &recoverylog.DAGAccepted{DAG: "dag_0001", SpecName: "wc.yaml", Spec: []byte(oneSink), Output: out,
			StagingID: "s1", Overwrite: true, Existed: true, SubmitUnixMs: 1000}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "v", Task: 0, Attempt: "a0", Worker: "w1"}},
		{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "v", Task: 1, Attempt: "a1", Worker: "w1"}},
	}
	if err := a.Recover(recs, core.RecoverOptions{Window: time.Minute}); err != nil {
		t.Fatal(err)
	}
	s, ok := a.loop.core.DAG("dag_0001")
	if !ok {
		t.Fatal("the recovered DAG is gone")
	}
	return a, a.view(s)
}

// The worst case: the AM died after _SUCCESS and before the DAG's
// end record was durable. The next attempt used to promote again, find no
// staging directory, delete every result as "old" and write _SUCCESS over
// nothing. Now it sees its own marker and leaves the output as it is.
func TestRecoveryLeavesADoneCommitAlone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	done := map[string]string{"part-00000": "r0", "part-00001": "r1", "_SUCCESS": "", commit.CommitMarker("s1"): ""}
	writeFiles(t, out, done)
	a, s := recoverCommitted(t, out)
	if s.State != core.DAGSucceeded {
		t.Errorf("the DAG is %s (%s), want SUCCEEDED", s.State, s.Diagnostics)
	}
	if got := readTree(t, out); !reflect.DeepEqual(got, done) {
		t.Errorf("the output holds %v, want it intact: %v", got, done)
	}
	if _, claimed := a.outputUser(out); claimed {
		t.Error("the output is still claimed: something would promote or abort it again")
	}
}

// The AM died between moving the old output aside and putting the new one
// in place: the next attempt finishes exactly that promotion.
func TestRecoveryFinishesAStartedCommit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	aside := filepath.Join(dir, ".out.ebb-commit-s1")
	writeFiles(t, aside, map[string]string{"part-00000": "old0", "part-00009": "old9",
		"_temporary/s1/part-00000": "r0", "_temporary/s1/part-00001": "r1", "_temporary/s1/_SUCCESS": "",
		"_temporary/s1/" + commit.CommitMarker("s1"): ""})
	_, s := recoverCommitted(t, out)
	if s.State != core.DAGSucceeded {
		t.Errorf("the DAG is %s (%s), want SUCCEEDED", s.State, s.Diagnostics)
	}
	want := map[string]string{"part-00000": "r0", "part-00001": "r1", "_SUCCESS": "", commit.CommitMarker("s1"): ""}
	if got := readTree(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("the output holds %v, want %v", got, want)
	}
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "out" {
		t.Errorf("beside the output: %v, want only out", names)
	}
}

// A commit that cannot be finished (the new output's staging is gone) is
// undone: the DAG fails and the old output comes back byte for byte.
func TestRecoveryUndoesACommitItCannotFinish(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	old := map[string]string{"part-00000": "old0", "part-00009": "old9", "_SUCCESS": ""}
	writeFiles(t, filepath.Join(dir, ".out.ebb-commit-s1"), old)
	_, s := recoverCommitted(t, out)
	if s.State != core.DAGFailed || !strings.Contains(s.Diagnostics, "committing the output") {
		t.Errorf("the DAG is %s (%q), want FAILED saying the commit could not be finished", s.State, s.Diagnostics)
	}
	if got := readTree(t, out); !reflect.DeepEqual(got, old) {
		t.Errorf("the output holds %v, want the old output %v", got, old)
	}
}
