package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/yarnclient"
)

// nnRestartDAG: e (two tasks, not a sink) and m (four tasks reading the
// test's four input files from HDFS, a sink) say they started and wait
// until the test has stopped the NameNode; then e's tasks end (their
// records go to the recovery log while the NameNode is away) and m's open
// and read their input splits and commit (while it is away). z (a sink
// reading e's outputs) waits for the test's release, so the DAG still
// runs once the NameNode is back.
const nnRestartDAG = `
name: %[1]s
containerGroup: {name: g, workerMemoryMB: 512}
output: %[2]s
vertices:
  - name: e
    command: 'touch %[3]s/e-$EBB_TASK_INDEX-$EBB_ATTEMPT; while [ ! -e %[4]s ]; do sleep 0.1; done; mkdir -p $EBB_OUTPUT_DIR/z && echo e$EBB_TASK_INDEX > $EBB_OUTPUT_DIR/z/0'
    parallelism: 2
    memoryMB: 128
  - name: m
    command: 'touch %[3]s/m-$EBB_TASK_INDEX-$EBB_ATTEMPT; while [ ! -e %[4]s ]; do sleep 0.1; done; for f in $EBB_INPUT_DIR/_splits/*; do if [ -e "$f" ]; then cat "$f"; fi; done > $EBB_OUTPUT_DIR/r'
    parallelism: 4
    memoryMB: 128
    inputs: ["%[6]s"]
  - name: z
    command: 'touch %[3]s/z-$EBB_TASK_INDEX-$EBB_ATTEMPT; while [ ! -e %[5]s ]; do sleep 0.1; done; cat $EBB_INPUT_DIR/e/* | sort > $EBB_OUTPUT_DIR/zr'
    parallelism: 1
    memoryMB: 128
edges:
  - {from: e, to: z, type: scatter-gather}
`

// nnLateDAGs are submitted to the session while the NameNode is away.
// The first counts the lines of the input files a glob names: the AM
// lists its inputs then. The second reads nothing: its record is what
// the recovery log writes then, and the AM acknowledges it only once that
// is durable. Neither names an output (the AM's default under
// /user/<user>/ebb-output is checked only when it commits), so that no
// check of an output is what meets the NameNode away.
var nnLateDAGs = []string{`
name: %[1]s-count
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - name: c
    command: 'for f in $EBB_INPUT_DIR/_splits/*; do if [ -e "$f" ]; then cat "$f"; fi; done | wc -l > $EBB_OUTPUT_DIR/n'
    parallelism: 1
    memoryMB: 128
    inputs: ["%[2]s"]
`, `
name: %[1]s-echo
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - name: x
    command: 'echo %[3]d > $EBB_OUTPUT_DIR/n'
    parallelism: 1
    memoryMB: 128
`}

// nnDown is how long the NameNode stays away.
const nnDown = 20 * time.Second

// TestYarnNameNodeRestart is issue 33's NameNode restart: the NameNode is
// stopped while a DAG's tasks run and started again nnDown later. Meanwhile
// tasks open and read their input splits, tasks end (the recovery log
// appends their records), sink tasks commit and the AM checkpoints its
// history (every second here).
//
// Within dfs.client.retry.policy.spec's bound (60 s here: "outlasted", a
// session) every one of these waits the NameNode out, and a second DAG
// submitted meanwhile is listed (a glob of its inputs), recorded and
// acknowledged once the NameNode is back. Then the AM is killed with
// kill -9: attempt 2 recovers both DAGs and every task the recovery log
// holds (none runs again), and both succeed with their outputs whole and
// not doubled. With a bound far shorter than the restart (2 s) the DAG
// fails with a line naming HDFS and the bound, and no result of it is
// visible.
func TestYarnNameNodeRestart(t *testing.T) {
	t.Run("outlasted", func(t *testing.T) { newNNRestartRun(t).outlasted(t) })
	t.Run("past the bound", func(t *testing.T) { newNNRestartRun(t).pastTheBound(t) })
}

// nnRestartRun is one run of nnRestartDAG.
type nnRestartRun struct {
	*faultDAG
	spec          string // the DAG's
	down, release string
	out           string
	lines         []string // the input files' lines
	sets          []string
}

func newNNRestartRun(t *testing.T) *nnRestartRun {
	f := newFaultDAG(t, "nnrestart")
	y := f.y
	r := &nnRestartRun{faultDAG: f, out: y.dir + "/out"}
	tmp := t.TempDir()
	r.down, r.release = filepath.Join(tmp, "down"), filepath.Join(tmp, "release")
	for i := range 4 {
		var b strings.Builder
		for j := range 50 {
			line := fmt.Sprintf("file%d-line%02d", i, j)
			r.lines = append(r.lines, line)
			b.WriteString(line + "\n")
		}
		y.putInput(fmt.Sprintf("part-%d", i), []byte(b.String()))
	}
	r.spec = y.writeDAG(fmt.Sprintf(nnRestartDAG, r.name, y.fs.URL(r.out), r.started, r.down, r.release, y.fs.URL(y.dir+"/input")))
	r.sets = append(append([]string{}, amSets...), "--set", "mr3.am.max.app.attempts=2", "--set", "ebb.history.checkpoint.interval.secs=1")
	return r
}

// restartNameNode stops the NameNode once e's and m's six tasks run, lets
// them go on (they end, read and commit with the NameNode away), runs
// during, and starts the NameNode again nnDown later.
func (r *nnRestartRun) restartNameNode(ctx context.Context, t *testing.T, retrySpec string, during func()) (stopped time.Time) {
	r.waitStarted("e's and m's six tasks to start", 6)
	stop := time.Now()
	if err := r.ctl.StopNameNode(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.ctl.StartNameNode(context.Background()) })
	touch(t, r.down)
	during()
	time.Sleep(nnDown) // the fault's length, not a wait for a condition
	if err := r.ctl.StartNameNode(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("the NameNode was away %s; %s=%s", time.Since(stop).Round(time.Millisecond), hdfsfs.RetrySpecKey, retrySpec)
	return stop
}

// hdfsRetries counts the lines of the application's container logs (the
// AMs' and the workers') that tell of an HDFS call tried again, by what
// was being done: "recovery log", "history", "input split", "listing"
// (a DAG's inputs), "sink commit" or "other".
func (r *nnRestartRun) hdfsRetries(id yarn.AppID) map[string]int {
	out := map[string]int{}
	for _, cs := range r.y.containerLogs(id) {
		for _, c := range cs {
			for _, f := range []string{"am.log", "worker.log"} {
				b, _ := os.ReadFile(filepath.Join(c, f))
				for _, l := range strings.Split(string(b), "\n") {
					if !strings.Contains(l, "HDFS does not answer") {
						continue
					}
					switch {
					case strings.Contains(l, "/recovery/"):
						out["recovery log"]++
					case strings.Contains(l, "/history"):
						out["history"]++
					case strings.Contains(l, "msg=\"reading hdfs://"):
						out["input split"]++
					case strings.Contains(l, "msg=\"listing hdfs://"):
						out["listing"]++
					case strings.Contains(l, "msg=\"committing to hdfs://"):
						out["sink commit"]++
					default:
						out["other"]++
					}
				}
			}
		}
	}
	return out
}

// outlasted runs the DAG in a session with a bound that outlasts the
// restart. While the NameNode is away two more DAGs are submitted; once it
// is back, both are acknowledged and every task of e and m is in the
// recovery log; the AM is killed (kill -9) and attempt 2 recovers the
// three DAGs: no task the log held runs again, all three succeed, the
// first's output is m's four results (the input's lines, once each) and
// z's, the late ones' the input's line count.
func (r *nnRestartRun) outlasted(t *testing.T) {
	y := r.y
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id := y.startSession(ctx, r.name, append([]string{"--set", hdfsfs.RetrySpecKey + "=1000,60"}, r.sets...)...)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	if out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), r.spec); err != nil {
		t.Fatalf("dag submit: %v\n%s", err, out)
	}
	late := r.submitLate(ctx, t, id)
	var logged map[string]bool
	var first amclient.DAG
	y.waitFor("the three DAGs and e's two and m's four tasks in the recovery log (or the first DAG to end)", 90*time.Second, func() bool {
		if d, _, err := y.dagNow(ctx, id); err == nil && d.State != "RUNNING" && d.State != "SUBMITTED" {
			first = d
			return true
		}
		logged = y.recordedTaskSet(id)
		return y.recordedDAGs(id) == 3 && logged["e-0"] && logged["e-1"] && logged["m-0"] && logged["m-1"] && logged["m-2"] && logged["m-3"]
	})
	if first.ID != "" {
		t.Fatalf("DAG %s %s before the kill (it waits for z's release): %s", first.ID, first.State, first.Diagnostics)
	}
	y.waitFor("z to start", 60*time.Second, func() bool { _, err := os.Stat(filepath.Join(r.started, "z-0-0")); return err == nil })
	retries := r.hdfsRetries(id)
	y.kill9AM(id)
	dags := r.recovered(ctx, t, id)
	failed := 0
	for _, d := range dags {
		failed += d.FailedAttempts
		if d.State != "SUCCEEDED" {
			t.Errorf("DAG %s %s: %s", d.ID, d.State, d.Diagnostics)
		}
	}
	var rerun []string
	for _, m := range r.markers() {
		if !strings.HasSuffix(m, "-0") && logged[m[:strings.LastIndex(m, "-")]] {
			rerun = append(rerun, m)
		}
	}
	t.Logf("HDFS calls tried again while the NameNode was away (log lines by what): %v; tasks the recovery log held at the kill: %v; started (vertex-task-attempt): %v; of those held, re-run: %v; failed attempts: %d",
		retries, keysOfBool(logged), r.markers(), rerun, failed)
	for _, what := range []string{"recovery log", "history", "input split", "listing"} {
		if retries[what] == 0 {
			t.Errorf("no %s call was tried again: the NameNode's restart did not fall where the test meant", what)
		}
	}
	if len(rerun) != 0 || failed != 0 {
		t.Errorf("attempts re-run %v, failed %d: want none (every task the recovery log held is recovered)", rerun, failed)
	}
	r.wantOutput(t)
	for _, d := range dags {
		if late[d.ID] {
			r.wantCount(t, d)
		}
	}
}

// submitLate submits nnLateDAGs to the session's AM while the NameNode is
// away (restartNameNode) and returns their ids once acknowledged. They go
// to the AM straight: `ebb dag submit` reads the session's secret from
// HDFS, and so would wait for the NameNode first.
func (r *nnRestartRun) submitLate(ctx context.Context, t *testing.T, id yarn.AppID) map[string]bool {
	am, _, err := r.y.currentAM(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = am.Close() }() // the test's connection only
	type answer struct {
		name, id string
		err      error
		at       time.Time
	}
	acked := make(chan answer, len(nnLateDAGs))
	stopped := r.restartNameNode(ctx, t, "1000,60", func() {
		for i, spec := range nnLateDAGs {
			go func() {
				b := []byte(fmt.Sprintf(spec, r.name, r.y.fs.URL(r.y.dir+"/input/part-*"), len(r.lines)))
				name := fmt.Sprintf("late-%d.yaml", i)
				id, err := am.Submit(ctx, amclient.Submit{Spec: b, SpecName: name, BaseDir: t.TempDir(), Client: t.Name()})
				acked <- answer{name, id, err, time.Now()}
			}()
		}
	})
	ids := map[string]bool{}
	for range nnLateDAGs {
		select {
		case a := <-acked:
			if a.err != nil {
				t.Fatalf("%s, submitted while the NameNode was away: %v", a.name, a.err)
			}
			t.Logf("%s, submitted while the NameNode was away, was acknowledged as %s %s after the NameNode was stopped", a.name, a.id, a.at.Sub(stopped).Round(time.Millisecond))
			ids[a.id] = true
		case <-time.After(90 * time.Second):
			t.Fatalf("the DAGs submitted while the NameNode was away: no answer 90s after the NameNode was started again")
		}
	}
	return ids
}

// recovered waits for AM attempt 2 to list the three DAGs, releases z,
// and waits for them to end.
func (r *nnRestartRun) recovered(ctx context.Context, t *testing.T, id yarn.AppID) []amclient.DAG {
	var dags []amclient.DAG
	var err error
	r.y.waitFor("AM attempt 2 to list the three DAGs", 120*time.Second, func() bool {
		var attempt int32
		dags, attempt, err = r.y.dagsNow(ctx, id)
		return err == nil && attempt == 2 && len(dags) == 3
	})
	touch(t, r.release)
	r.y.waitFor("the three DAGs to end under AM attempt 2", 120*time.Second, func() bool {
		dags, _, err = r.y.dagsNow(ctx, id)
		if err != nil || len(dags) != 3 {
			return false
		}
		for _, d := range dags {
			if d.State == "RUNNING" || d.State == "SUBMITTED" {
				return false
			}
		}
		return true
	})
	return dags
}

// wantCount checks a late DAG's output: its one result holds the input's
// line count.
func (r *nnRestartRun) wantCount(t *testing.T, d amclient.DAG) {
	p, err := r.y.fs.Path(d.Output)
	if err != nil {
		t.Fatalf("DAG %s's output %q: %v", d.ID, d.Output, err)
	}
	defer func() { _ = r.y.fs.RemoveAll(p) }() // outside the test's directory
	got := r.y.hdfsTree(p)
	takeCommitMarkers(t, got)
	var results []string
	for f, v := range got {
		results = append(results, f+"="+strings.TrimSpace(v))
	}
	if len(results) != 1 || !strings.HasSuffix(results[0], "="+strconv.Itoa(len(r.lines))) {
		t.Errorf("DAG %s's output %v, want one result holding %d", d.ID, results, len(r.lines))
	}
}

// wantOutput checks the first DAG's output: m's four results hold the
// input's lines once each, z's holds e's two lines.
func (r *nnRestartRun) wantOutput(t *testing.T) {
	got := r.y.hdfsTree(r.out)
	takeCommitMarkers(t, got)
	var lines []string
	for i := range 4 {
		f := fmt.Sprintf("m/r-%05d", i)
		lines = append(lines, strings.Fields(got[f])...)
		delete(got, f)
	}
	sort.Strings(lines)
	if strings.Join(lines, " ") != strings.Join(r.lines, " ") {
		t.Errorf("m's results hold %d lines, want the input's %d once each", len(lines), len(r.lines))
	}
	if got["z/zr-00000"] != "e0\ne1\n" {
		t.Errorf("z's result %q, want e0 and e1", got["z/zr-00000"])
	}
	delete(got, "z/zr-00000")
	if len(got) != 0 {
		t.Errorf("the output holds more: %v", keysOf(got))
	}
}

// pastTheBound runs the DAG (`ebb submit`, followed) with a bound far
// shorter than the restart: the DAG fails naming HDFS and the bound, and
// leaves nothing in its output.
func (r *nnRestartRun) pastTheBound(t *testing.T) {
	y := r.y
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sets := append([]string{"--set", hdfsfs.RetrySpecKey + "=1000,2"}, r.sets...)
	id, followed := y.submitFollowed(ctx, r.name, append([]string{r.spec}, sets...)...)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }() // a failed test leaves no DAG waiting
	r.restartNameNode(ctx, t, "1000,2", func() {})
	res := <-followed
	t.Logf("the following ebb submit said (%v):\n%s", res.err, res.out)
	t.Logf("HDFS calls tried again (log lines by what): %v", r.hdfsRetries(id))
	if rep := y.report(id); rep.Final != yarn.Failed || !strings.Contains(rep.Diagnostics, "HDFS unavailable") || !strings.Contains(rep.Diagnostics, hdfsfs.RetrySpecKey) {
		t.Errorf("application %s %s (%s), want FAILED naming HDFS unavailable and the bound", rep.State, rep.Final, rep.Diagnostics)
	}
	if ok, err := y.fs.Exists(r.out); err != nil || !ok {
		return // nothing there at all
	}
	for f := range y.hdfsTree(r.out) {
		if !strings.HasPrefix(f, "_") { // readers skip _temporary and markers
			t.Errorf("the failed DAG left %s in its output", f)
		}
	}
}

// recordedTaskSet is the tasks (vertex-task) with a TaskSucceeded record in
// the application's recovery log, as the next AM attempt would read it.
func (y *yarnTest) recordedTaskSet(id yarn.AppID) map[string]bool {
	_, _, recs, _, err := recovery.Open(hdfsfs.RecoveryLog{FS: y.fs}, yarnclient.StagingDir(y.user, id)+"/recovery")
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, rec := range recs {
		if ts := rec.TaskSucceeded; ts != nil {
			out[fmt.Sprintf("%s-%d", ts.Vertex, ts.Task)] = true
		}
	}
	return out
}

func keysOfBool(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
