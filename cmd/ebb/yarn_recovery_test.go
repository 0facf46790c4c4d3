package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/yarnclient"
)

// attemptLogs maps each attempt of the application whose id matches re
// to the container whose log directory holds its stdout: workers write
// <attempt id>.stdout there.
func (y *yarnTest) attemptLogs(id yarn.AppID, re *regexp.Regexp) map[string]string {
	out := map[string]string{}
	for _, cs := range y.containerLogs(id) {
		for _, c := range cs {
			files, _ := filepath.Glob(filepath.Join(c, "dag_*.stdout"))
			for _, f := range files {
				a := strings.TrimSuffix(filepath.Base(f), ".stdout")
				if re.MatchString(a) {
					out[a] = filepath.Base(c)
				}
			}
		}
	}
	return out
}

// threeVertices: a (2 tasks) writes one line per consumer partition; b
// (2 tasks, 12 s each) passes its inputs on; c (the sink) concatenates.
// The result holds each of a's lines twice.
const threeVertices = `
name: three
containerGroup: {name: g, workerMemoryMB: 512}
output: %s
vertices:
  - name: a
    command: 'mkdir -p $EBB_OUTPUT_DIR/b && for p in 0 1; do echo a$EBB_TASK_INDEX > $EBB_OUTPUT_DIR/b/$p; done'
    parallelism: 2
    memoryMB: 128
  - name: b
    command: 'sleep 12 && mkdir -p $EBB_OUTPUT_DIR/c && cat $EBB_INPUT_DIR/a/* > $EBB_OUTPUT_DIR/c/0'
    parallelism: 2
    memoryMB: 128
  - name: c
    command: 'cat $EBB_INPUT_DIR/b/* | sort > $EBB_OUTPUT_DIR/result'
    parallelism: 1
    memoryMB: 128
edges:
  - {from: a, to: b, type: scatter-gather}
  - {from: b, to: c, type: scatter-gather}
`

// TestYarnAMKilledMidDAGResumes is the acceptance run: kill -9 of
// the AM once vertex a has succeeded and b runs. YARN starts attempt 2,
// which reads the recovery log, takes over the workers of attempt 1 (same
// containers) with a's outputs and b's running attempts, and finishes the
// DAG: a's tasks ran exactly once, b's too, and the output is right.
func TestYarnAMKilledMidDAGResumes(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(fmt.Sprintf(threeVertices, y.fs.URL(y.dir+"/out")))
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	// The measurement is with a 1 s RM heartbeat (later --set wins).
	id, followed := y.submitFollowed(ctx, "three", append(append([]string{spec}, amSets...), "--set", "mr3.am.max.app.attempts=2",
		"--set", "mr3.am.rm.heartbeat.interval.ms=1000")...)
	bRunning := regexp.MustCompile(`RUNNING: 2/5 tasks, 2 running`)
	y.waitFor("a done and b running", 90*time.Second, func() bool {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		return err == nil && bRunning.MatchString(out)
	})
	// Kill only once a's two tasks are durable in the recovery log (they
	// are written at most a linger after they end): the test is about
	// adopting b and not rerunning a.
	y.waitFor("a's two tasks in the recovery log", 30*time.Second, func() bool {
		return y.recordedTasks(id, "a") == 2
	})
	y.kill9AM(id)
	killed := time.Now()
	// Progress again: attempt 2 runs the DAG (b's adopted attempts) or
	// moves it past 2/5.
	var progressed time.Duration
	y.waitFor("the DAG to progress under attempt 2", 120*time.Second, func() bool {
		d, attempt, err := y.dagNow(ctx, id)
		if err == nil && attempt == 2 && d.State == "RUNNING" && (d.RunningAttempts > 0 || d.SucceededTasks > 2) {
			progressed = time.Since(killed)
			t.Logf("attempt 2: %s %d/%d tasks, %d running, recovered %v", d.State, d.SucceededTasks, d.TotalTasks, d.RunningAttempts, d.Recovered)
			return true
		}
		if y.report(id).State.Done() {
			t.Errorf("the application ended before its DAG was seen running under attempt 2")
			return true
		}
		return false
	})
	t.Logf("from kill -9 to the DAG making progress again: %s", progressed.Round(100*time.Millisecond))
	res := <-followed
	t.Logf("the following ebb submit said:\n%s", res.out)
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
		t.Fatalf("application %s %s (%s), want FINISHED SUCCEEDED", r.State, r.Final, r.Diagnostics)
	}
	b, err := y.fs.ReadFile(y.dir + "/out/result-00000")
	if err != nil {
		files, _ := y.fs.List(y.dir + "/out")
		t.Fatalf("reading the result: %v (out holds %v)", err, files)
	}
	if got := strings.Fields(string(b)); strings.Join(got, " ") != "a0 a0 a1 a1" {
		t.Errorf("result %q, want a0 a0 a1 a1", b)
	}
	for _, v := range []string{"a", "b"} {
		logs := y.attemptLogs(id, regexp.MustCompile(`^dag_0001_`+v+`_`))
		var attempts []string
		for a, c := range logs {
			attempts = append(attempts, a+" in "+c)
			if !strings.Contains(c, "_01_") {
				t.Errorf("attempt %s ran in %s, not a container of attempt 1", a, c)
			}
		}
		sort.Strings(attempts)
		t.Logf("vertex %s attempts: %v", v, attempts)
		if len(logs) != 2 {
			t.Errorf("vertex %s ran %d attempts, want exactly its 2 tasks once each", v, len(logs))
		}
	}
	if !strings.Contains(res.out, "took over") {
		t.Errorf("the following client did not say that attempt 2 took over")
	}
}

// currentAM connects to the application's current AM attempt with short
// timeouts (the AM may just have died); close the connection when done.
func (y *yarnTest) currentAM(ctx context.Context, id yarn.AppID) (*amclient.Client, int32, error) {
	rep, err := y.rm.Report(ctx, id)
	if err != nil || rep.State != yarn.StateRunning || rep.RPCPort <= 0 {
		return nil, 0, fmt.Errorf("not running (%v)", err)
	}
	b, err := y.fs.ReadFile(yarnclient.StagingDir(y.user, id) + "/" + yarnclient.StagedSecret)
	if err != nil {
		return nil, 0, err
	}
	c, err := amclient.Dial(amclient.Target{Addr: yarnclient.AMAddress(rep), Secret: strings.TrimSpace(string(b)), Attempt: rep.Attempt}, amclient.Options{})
	if err != nil {
		return nil, 0, err
	}
	return c, rep.Attempt, nil
}

// dagNow reads dag_0001 from the application's current AM, and the
// attempt that answered.
func (y *yarnTest) dagNow(ctx context.Context, id yarn.AppID) (amclient.DAG, int32, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, attempt, err := y.currentAM(ctx, id)
	if err != nil {
		return amclient.DAG{}, 0, err
	}
	defer func() { _ = c.Close() }() // one read
	d, err := c.Status(ctx, "dag_0001")
	return d, attempt, err
}

// dagsNow lists the DAGs of the application's current AM attempt.
func (y *yarnTest) dagsNow(ctx context.Context, id yarn.AppID) ([]amclient.DAG, int32, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, attempt, err := y.currentAM(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = c.Close() }() // one read
	l, err := c.List(ctx, amclient.Page{})
	return l.DAGs, attempt, err
}

// TestYarnSessionRecoversThreeDAGs: a session with one DAG finished, one
// running and one queued (one DAG at a time); kill -9 of its AM. Attempt 2
// lists all three with their states, marked recovered; the running and the
// queued one finish; ebb dag status says "recovered".
func TestYarnSessionRecoversThreeDAGs(t *testing.T) {
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", "mr3.am.max.app.attempts=2",
		"--set", "mr3.am.max.num.concurrent.dags=1", "--set", "ebb.session.idle.timeout.secs=120")
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "recovering-session"}, sets...)...)
	if err != nil {
		t.Fatalf("ebb submit --detach (a session): %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }() // the verdict is in; an ended application cannot be killed
	dagSpec := func(name, secs string) string {
		return y.writeDAG(fmt.Sprintf(`
name: %s
containerGroup: {name: s, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "%s"], parallelism: 2, memoryMB: 128}
`, name, secs))
	}
	local := func() string { return filepath.Join(t.TempDir(), "out") }
	if out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", local(), dagSpec("first", "0.2")); err != nil {
		t.Fatalf("first DAG: %v\n%s", err, out)
	}
	// The second DAG's client waits for it, through the takeover.
	type result struct {
		out string
		err error
	}
	waited := make(chan result, 1)
	secondSpec := dagSpec("second", "8")
	go func() {
		out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", local(), secondSpec)
		waited <- result{out, err}
	}()
	y.waitFor("the second DAG to be accepted", 30*time.Second, func() bool {
		dags, _, err := y.dagsNow(ctx, id)
		return err == nil && len(dags) == 2
	})
	if out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--output", local(), dagSpec("third", "8")); err != nil {
		t.Fatalf("third DAG: %v\n%s", err, out)
	}
	states := func(dags []amclient.DAG) string {
		var s []string
		for _, d := range dags {
			s = append(s, fmt.Sprintf("%s %s %s recovered=%v", d.ID, d.Name, d.State, d.Recovered))
		}
		sort.Strings(s)
		return strings.Join(s, "; ")
	}
	y.waitFor("second running, third queued", 60*time.Second, func() bool {
		dags, _, err := y.dagsNow(ctx, id)
		return err == nil && states(dags) == "dag_0001 first SUCCEEDED recovered=false; dag_0002 second RUNNING recovered=false; dag_0003 third SUBMITTED recovered=false" &&
			dags[1].RunningAttempts > 0
	})
	y.kill9AM(id)
	var listed string
	y.waitFor("attempt 2 to list the DAGs", 60*time.Second, func() bool {
		dags, attempt, err := y.dagsNow(ctx, id)
		if err != nil || attempt != 2 {
			return false
		}
		listed = states(dags)
		return true
	})
	t.Logf("attempt 2 lists: %s", listed)
	if !strings.HasPrefix(listed, "dag_0001 first SUCCEEDED recovered=true; dag_0002 second ") ||
		!strings.Contains(listed, "dag_0003 third SUBMITTED recovered=true") || !strings.Contains(listed, "dag_0002 second RUNNING recovered=true") &&
		!strings.Contains(listed, "dag_0002 second SUBMITTED recovered=true") {
		t.Errorf("attempt 2 lists %s", listed)
	}
	y.waitFor("the second and third DAG to finish", 90*time.Second, func() bool {
		dags, _, err := y.dagsNow(ctx, id)
		return err == nil && states(dags) == "dag_0001 first SUCCEEDED recovered=true; dag_0002 second SUCCEEDED recovered=true; dag_0003 third SUCCEEDED recovered=true"
	})
	w := <-waited
	t.Logf("ebb dag submit --wait of the second DAG said:\n%s", w.out)
	if w.err != nil || !strings.Contains(w.out, "AM attempt 2 took over; DAG dag_0002 resumed at") || !strings.Contains(w.out, "dag_0002 SUCCEEDED") {
		t.Errorf("ebb dag submit --wait did not follow the DAG through the takeover to its end: %v", w.err)
	}
	out, err = y.ebb(ctx, "dag", "status", "--app", id.String(), "dag_0002")
	t.Logf("ebb dag status --app %s dag_0002:\n%s", id, out)
	if err != nil || !strings.Contains(out, "recovered") || !strings.Contains(out, "SUCCEEDED") {
		t.Errorf("ebb dag status does not show dag_0002 SUCCEEDED and recovered: %v", err)
	}
	// The attempts running at the kill were adopted, not killed and rerun.
	if !strings.Contains(out, " 0 failed attempts") {
		t.Errorf("dag_0002 lost attempts to the takeover")
	}
}

// TestYarnRecoveryOff: with mr3.dag.recovery.enabled=false, attempt 2 of a
// session fails the DAG that was running with "AM restarted and recovery
// is off", and the session stays up and runs a new DAG.
func TestYarnRecoveryOff(t *testing.T) {
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", "mr3.am.max.app.attempts=2",
		"--set", "mr3.dag.recovery.enabled=false", "--set", "ebb.session.idle.timeout.secs=120")
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "no-recovery"}, sets...)...)
	if err != nil {
		t.Fatalf("ebb submit --detach (a session): %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }() // the verdict is in
	spec := y.writeDAG(`
name: long
containerGroup: {name: s, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0.5"], parallelism: 1, memoryMB: 128}
`)
	slow := y.writeDAG(`
name: slow
containerGroup: {name: s, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "600"], parallelism: 1, memoryMB: 128}
`)
	local := filepath.Join(t.TempDir(), "out")
	if out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--output", local, slow); err != nil {
		t.Fatalf("dag submit: %v\n%s", err, out)
	}
	y.waitFor("the DAG to run", 60*time.Second, func() bool {
		dags, _, err := y.dagsNow(ctx, id)
		return err == nil && len(dags) == 1 && dags[0].RunningAttempts > 0
	})
	y.kill9AM(id)
	var dags []amclient.DAG
	y.waitFor("attempt 2 to list the DAG", 60*time.Second, func() bool {
		var attempt int32
		dags, attempt, err = y.dagsNow(ctx, id)
		return err == nil && attempt == 2 && len(dags) == 1 && dags[0].State == "FAILED"
	})
	if d := dags[0]; d.ID != "dag_0001" || d.Diagnostics != "AM restarted and recovery is off" {
		t.Errorf("attempt 2 lists %s %s: %s", d.ID, d.State, d.Diagnostics)
	}
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", filepath.Join(t.TempDir(), "out2"), spec)
	t.Logf("a new DAG after the restart:\n%s", out)
	if err != nil || !strings.Contains(out, "dag_0002 SUCCEEDED") {
		t.Errorf("the session does not run a new DAG after the restart: %v", err)
	}
}

// recordedTasks counts the TaskSucceeded records of vertex v in the
// application's recovery log, as the next AM attempt would read it.
func (y *yarnTest) recordedTasks(id yarn.AppID, v string) int {
	_, _, recs, _, err := recovery.Open(hdfsfs.RecoveryLog{FS: y.fs}, yarnclient.StagingDir(y.user, id)+"/recovery")
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range recs {
		if r.TaskSucceeded != nil && r.TaskSucceeded.Vertex == v {
			n++
		}
	}
	return n
}
