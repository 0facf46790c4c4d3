package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// The ResourceManager's own faults (issue 33, items 1 and 2), on the
// faults cluster (testcluster.FaultsConfDir: two RMs, rm0 active, RM
// recovery from a FileSystemRMStateStore, work-preserving), whose RMs the
// tests stop and start through the launcher's control channel.

// rmFaultDAG: 4 map tasks that run across the fault: each waits until a
// marker file exists (the test creates it once the AM has resynced; the
// workers run on this machine), at most the given tenths of a second;
// then a sink that concatenates what they wrote. The DAG has a container
// group of its own (name, worker MB).
const rmFaultDAG = `
name: %s
containerGroup: {name: %s, workerMemoryMB: %d}
output: %s
vertices:
  - name: map
    command: 'for i in $(seq 1 %d); do [ -e %s ] && break; sleep 0.1; done; mkdir -p $EBB_OUTPUT_DIR/sink && echo m$EBB_TASK_INDEX > $EBB_OUTPUT_DIR/sink/0'
    parallelism: 4
    memoryMB: 128
  - name: sink
    command: 'cat $EBB_INPUT_DIR/map/* | sort > $EBB_OUTPUT_DIR/result'
    parallelism: 1
    memoryMB: 128
edges:
  - {from: map, to: sink, type: scatter-gather}
`

const rmFaultResult = "m0 m1 m2 m3"

// rmDown is how long an RM stays away: many AM heartbeats (250 ms) and
// NodeManager heartbeats, so each client meets the fault.
const rmDown = 4 * time.Second

// newFaultsTest is a yarnTest on the faults cluster, held exclusively
// (the test stops its RMs), with the RMs put back as found afterwards:
// all running, rm0 active.
func newFaultsTest(t *testing.T) (*yarnTest, *testcluster.Control) {
	t.Helper()
	dir := testcluster.FaultsConfDir(t)
	testcluster.ExclusiveAt(t, dir)
	t.Setenv(testcluster.EnvConfDir, dir) // the helpers read this cluster
	ctl := testcluster.ControlOf(t, dir)
	t.Cleanup(func() { restoreRMs(t, ctl) })
	return newYarnTest(t), ctl
}

func restoreRMs(t *testing.T, ctl *testcluster.Control) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := ctl.RMStates(ctx)
	if err != nil {
		t.Errorf("restoring the RMs: %v", err)
		return
	}
	for _, id := range ctl.RMIDs() {
		if st[id] == "STOPPED" {
			if err := ctl.StartRM(ctx, id); err != nil {
				t.Errorf("restoring the RMs: %v", err)
			}
		} else if st[id] == "ACTIVE" && id != "rm0" {
			if err := ctl.StandbyRM(ctx, id); err != nil {
				t.Errorf("restoring the RMs: %v", err)
			}
		}
	}
	if st["rm0"] != "ACTIVE" {
		if err := ctl.ActivateRM(ctx, "rm0"); err != nil {
			t.Errorf("restoring the RMs: %v", err)
		}
	}
}

// proxyAPI is the AM's API through the web proxy of RM id.
func proxyAPI(ctl *testcluster.Control, id string, app yarn.AppID) string {
	return "http://" + ctl.Env()[strings.ToUpper(id)+"_WEBAPP"] + "/proxy/" + app.String() + "/api/v1/"
}

var reregisteredRe = regexp.MustCompile(`time="([0-9:.]+)" level=info msg="yarn: re-registered: (\d+) containers held, (\d+) live at the RM, (\d+) surplus released`)

// touch creates the marker file the DAG's map tasks wait for.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// resync is what the AM's log tells of its first re-registration.
type resync struct {
	at                  time.Time
	held, live, surplus string
	line                int // its line in am.log
}

// waitReregistered waits until the AM's log tells of its re-registration
// (the AM logs in UTC, to the millisecond, without the date).
func (y *yarnTest) waitReregistered(id yarn.AppID, bound time.Duration) resync {
	y.t.Helper()
	var r resync
	y.waitFor(fmt.Sprintf("the AM's re-registration (am.log: %q)", "yarn: re-registered"), bound, func() bool {
		for i, l := range strings.Split(y.amLog(id), "\n") {
			if m := reregisteredRe.FindStringSubmatch(l); m != nil {
				clock, err := time.Parse("15:04:05.000", m[1])
				if err != nil {
					y.t.Fatalf("am.log time %q: %v", m[1], err)
				}
				now := time.Now().UTC()
				r = resync{at: time.Date(now.Year(), now.Month(), now.Day(), clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.UTC),
					held: m[2], live: m[3], surplus: m[4], line: i}
				return true
			}
		}
		return false
	})
	return r
}

// resyncedWhileRunning fails the test unless the AM's re-registration
// came before its log says the DAG ended: an AM that resyncs only when it
// unregisters (its heartbeat never does) would pass everything else.
func (y *yarnTest) resyncedWhileRunning(id yarn.AppID, r resync, dagID string) {
	y.t.Helper()
	for i, l := range strings.Split(y.amLog(id), "\n") {
		if strings.Contains(l, `msg="DAG `+dagID+` (`) && strings.Contains(l, ") SUCCEEDED in ") {
			if i < r.line {
				y.t.Errorf("the AM re-registered (am.log line %d) only after %s ended (line %d): its heartbeat did not resync", r.line, dagID, i)
			}
			return
		}
	}
}

// attemptsRerun counts, per vertex, the attempts beyond one per task
// (from the attempt logs the workers write), and fails the test when a
// vertex ran fewer attempts than tasks.
func (y *yarnTest) attemptsRerun(id yarn.AppID, tasks map[string]int) int {
	y.t.Helper()
	rerun := 0
	for v, n := range tasks {
		logs := y.attemptLogs(id, regexp.MustCompile(`^dag_0001_`+v+`_`))
		var names []string
		for a := range logs {
			names = append(names, a)
		}
		sort.Strings(names)
		y.t.Logf("vertex %s attempts: %v", v, names)
		if len(logs) < n {
			y.t.Errorf("vertex %s: %d attempt logs for %d tasks", v, len(logs), n)
		}
		rerun += max(0, len(logs)-n)
	}
	return rerun
}

// TestYarnRMRestartWorkPreserving is item 1: the active RM is stopped
// while four map attempts run, stays away rmDown, and comes back from its
// state store. The AM, told it is not registered, registers again and
// re-sends its table; the DAG succeeds with no attempt re-run and the same
// AM attempt; the following `ebb submit` and an `ebb dag status` asked
// while the RM was away both outlast it; the tracking URL answers after.
func TestYarnRMRestartWorkPreserving(t *testing.T) {
	y, ctl := newFaultsTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rm, err := ctl.ActiveRM(ctx)
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "resynced")
	spec := y.writeDAG(fmt.Sprintf(rmFaultDAG, "rm-restart", "g", 512, y.fs.URL(y.dir+"/out"), 1200, marker))
	id, followed := y.submitFollowed(ctx, "rm-restart", append([]string{spec}, amSets...)...)
	y.waitFor("the 4 map attempts running", 120*time.Second, func() bool {
		d, _, err := y.dagNow(ctx, id)
		return err == nil && d.RunningAttempts == 4
	})

	stopped := time.Now()
	if err := ctl.StopRM(ctx, rm); err != nil {
		t.Fatal(err)
	}
	// A gateway command while no RM answers: it must wait the RM out.
	status := make(chan submitted, 1)
	go func() {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		status <- submitted{out, err}
	}()
	time.Sleep(rmDown) // the fault's length, an input of the test
	if err := ctl.StartRM(ctx, rm); err != nil {
		t.Fatal(err)
	}
	activating := time.Now()
	if err := ctl.ActivateRM(ctx, rm); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s away for %s (stopped, started from its state store, made active again, its NodeManagers back, in %s)",
		rm, time.Since(stopped).Round(time.Millisecond), time.Since(activating).Round(time.Millisecond))
	r := y.waitReregistered(id, 60*time.Second)
	t.Logf("time to resync: the AM re-registered %s after %s was asked to become active, %s after it was stopped (%s held, %s live at the RM, %s surplus released)",
		r.at.Sub(activating).Round(time.Millisecond), rm, r.at.Sub(stopped).Round(time.Millisecond), r.held, r.live, r.surplus)
	var ds []ui.DAG
	y.waitFor("the tracking URL through "+rm+"'s proxy", 30*time.Second, func() bool {
		return y.tryJSON(proxyAPI(ctl, rm, id)+"dags", &ds) && len(ds) == 1
	})
	if ds[0].State != "RUNNING" || ds[0].Running != 4 {
		t.Errorf("after the resync the DAG is %s with %d running tasks, want RUNNING with its 4", ds[0].State, ds[0].Running)
	}
	touch(t, marker) // the map tasks may end now

	st := <-status
	t.Logf("ebb dag status asked while %s was away (%v):\n%s", rm, st.err, st.out)
	if st.err != nil || !strings.Contains(st.out, "dag_0001") {
		t.Errorf("ebb dag status during the restart: %v, want the DAG's status once the RM was back", st.err)
	}
	res := <-followed
	y.wantSucceeded(t, id, res, false)
	y.resyncedWhileRunning(id, r, "dag_0001")
	if r := y.report(id); r.Attempt != 1 {
		t.Errorf("AM attempt %d at the end, want 1: the restart cost the AM its attempt", r.Attempt)
	}
	b, err := y.fs.ReadFile(y.dir + "/out/result-00000")
	if err != nil {
		t.Fatalf("reading the result: %v", err)
	}
	if got := strings.Join(strings.Fields(string(b)), " "); got != rmFaultResult {
		t.Errorf("result %q, want %q", got, rmFaultResult)
	}
	rerun := y.attemptsRerun(id, map[string]int{"map": 4, "sink": 1})
	t.Logf("attempts re-run: %d", rerun)
	if rerun != 0 {
		t.Errorf("%d attempts re-run after the RM restart, want 0", rerun)
	}
}

// TestYarnRMFailoverSession is item 2: a session AM runs a DAG when the
// active RM is stopped; for a while no RM is active, and meanwhile a new
// `ebb submit`, an `ebb dag submit` to the session, an `ebb dag status`,
// an `ebb kill` of another session and an `ebb clean` are asked; then the
// standby is made active (a manual failover). The AM's and the gateway's
// clients fail over to it: both DAGs succeed with no attempt re-run, the
// five commands succeed, and `ebb kill` and `ebb clean` work after.
func TestYarnRMFailoverSession(t *testing.T) {
	y, ctl := newFaultsTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	from, err := ctl.ActiveRM(ctx)
	if err != nil {
		t.Fatal(err)
	}
	to := "rm1"
	if from == "rm1" {
		to = "rm0"
	}
	sets := append([]string{"--set", "mr3.am.session.mode=true", "--set", "ebb.session.idle.timeout.secs=300"}, amSets...)
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "rm-failover"}, sets...)...)
	if err != nil {
		t.Fatalf("starting the session: %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	// A second session, to be killed while no RM is active.
	out, err = y.ebb(ctx, append([]string{"submit", "--detach", "--name", "rm-failover-victim"}, sets...)...)
	if err != nil {
		t.Fatalf("starting the session to kill: %v\n%s", err, out)
	}
	victim := y.appID(out)
	// The second DAG's group has bigger workers: it needs new containers,
	// which only an AM that resynced with the new active RM gets.
	marker := filepath.Join(t.TempDir(), "resynced")
	dagSubmit := func(name, group string, mb, tenths int) (string, error) {
		spec := y.writeDAG(fmt.Sprintf(rmFaultDAG, name, group, mb, y.fs.URL(y.dir+"/"+name), tenths, marker))
		return y.ebb(ctx, "dag", "submit", "--app", id.String(), spec)
	}
	if out, err := dagSubmit("first", "g", 512, 1200); err != nil {
		t.Fatalf("dag submit: %v\n%s", err, out)
	}
	y.waitFor("the 4 map attempts running", 120*time.Second, func() bool {
		d, _, err := y.dagNow(ctx, id)
		return err == nil && d.RunningAttempts == 4
	})

	stopped := time.Now()
	if err := ctl.StopRM(ctx, from); err != nil {
		t.Fatal(err)
	}
	// Gateway commands while no RM is active.
	during := map[string]chan submitted{}
	for _, c := range []string{"ebb submit", "ebb dag submit", "ebb dag status", "ebb kill", "ebb clean"} {
		during[c] = make(chan submitted, 1)
	}
	go func() {
		out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "rm-failover-second"}, sets...)...)
		during["ebb submit"] <- submitted{out, err}
	}()
	go func() {
		out, err := dagSubmit("second", "big", 1024, 1200)
		during["ebb dag submit"] <- submitted{out, err}
	}()
	go func() {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		during["ebb dag status"] <- submitted{out, err}
	}()
	go func() {
		out, err := y.ebb(ctx, "kill", victim.String())
		during["ebb kill"] <- submitted{out, err}
	}()
	go func() {
		out, err := y.ebb(ctx, "clean")
		during["ebb clean"] <- submitted{out, err}
	}()
	time.Sleep(rmDown) // the fault's length, an input of the test
	activating := time.Now()
	if err := ctl.ActivateRM(ctx, to); err != nil {
		t.Fatal(err)
	}
	t.Logf("failover: %s stopped, %s asked to become active %s later, active with its NodeManagers in %s",
		from, to, activating.Sub(stopped).Round(time.Millisecond), time.Since(activating).Round(time.Millisecond))
	r := y.waitReregistered(id, 60*time.Second)
	t.Logf("failover time: the AM re-registered at %s %s after it was asked to become active, %s after %s was stopped (%s held, %s live at the RM, %s surplus released)",
		to, r.at.Sub(activating).Round(time.Millisecond), r.at.Sub(stopped).Round(time.Millisecond), from, r.held, r.live, r.surplus)
	touch(t, marker) // the map tasks may end now
	var second yarn.AppID
	for name, ch := range during {
		r := <-ch
		t.Logf("%s asked during the failover (%v):\n%s", name, r.err, r.out)
		if r.err != nil {
			t.Errorf("%s during the failover: %v", name, r.err)
		}
		if name == "ebb submit" && r.err == nil {
			second = y.appID(r.out)
		}
	}

	// Both DAGs of the session succeed; read through the new RM's proxy.
	api := proxyAPI(ctl, to, id)
	var ds []ui.DAG
	y.waitFor("both DAGs to end (through "+to+"'s proxy)", 120*time.Second, func() bool {
		if !y.tryJSON(api+"dags", &ds) || len(ds) != 2 {
			return false
		}
		for _, d := range ds {
			if d.State == "RUNNING" || d.State == "SUBMITTED" {
				return false
			}
		}
		return true
	})
	rerun := 0
	for _, d := range ds {
		if d.State != "SUCCEEDED" {
			t.Errorf("DAG %s %s: %s", d.ID, d.State, d.Diagnostics)
		}
		var det ui.DAGDetail
		y.getJSON(api+"dags/"+d.ID+"?limit=1000", &det)
		perTask := map[string]int{}
		for _, a := range det.Attempts {
			perTask[fmt.Sprintf("%s/%d", a.Vertex, a.Task)]++
		}
		for task, n := range perTask {
			if n > 1 {
				rerun += n - 1
				t.Errorf("DAG %s task %s ran %d attempts", d.ID, task, n)
			}
		}
	}
	t.Logf("attempts re-run: %d", rerun)
	for _, name := range []string{"first", "second"} {
		b, err := y.fs.ReadFile(y.dir + "/" + name + "/result-00000")
		if got := strings.Join(strings.Fields(string(b)), " "); err != nil || got != rmFaultResult {
			t.Errorf("DAG %s result %q (%v), want %q", name, got, err, rmFaultResult)
		}
	}
	if r := y.report(id); r.Attempt != 1 {
		t.Errorf("session AM attempt %d, want 1: the failover cost the AM its attempt", r.Attempt)
	}
	if r := y.report(victim); r.State != yarn.StateKilled {
		t.Errorf("the session killed during the failover is %s, want KILLED", r.State)
	}

	// After the failover: ebb kill (the session submitted during it and
	// the first one), then ebb clean.
	for _, app := range []yarn.AppID{second, id} {
		if app == (yarn.AppID{}) {
			continue
		}
		if out, err := y.ebb(ctx, "kill", app.String()); err != nil {
			t.Errorf("ebb kill %s after the failover: %v\n%s", app, err, out)
		}
		y.waitFor(app.String()+" to end", 60*time.Second, func() bool { return y.report(app).State.Done() })
	}
	out, err = y.ebb(ctx, "clean")
	t.Logf("ebb clean after the failover:\n%s", out)
	if err != nil {
		t.Errorf("ebb clean after the failover: %v", err)
	}
	if second != (yarn.AppID{}) && y.stagingExists(second) {
		t.Errorf("the staging dir of %s is still there after ebb kill and ebb clean", second)
	}
}
