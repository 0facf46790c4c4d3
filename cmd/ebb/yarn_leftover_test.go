package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
)

// Tests of what an application leaves behind (staging directories,
// containers, tracking URLs) however it ends.

// amPID is the pid of the application's running `ebb am` process, found
// through the pid files the NodeManagers keep for their containers (the
// AM container's command execs ebb, so the container's process is it).
func (y *yarnTest) amPID(id yarn.AppID) int {
	y.t.Helper()
	found := y.amPIDs(id)
	if len(found) != 1 {
		y.t.Fatalf("found AM processes %v of %s, want one", found, id)
	}
	return found[0]
}

// amPIDOK: exactly one `ebb am` process of the application runs (a new
// attempt's has started, an old one's is gone).
func (y *yarnTest) amPIDOK(id yarn.AppID) bool { return len(y.amPIDs(id)) == 1 }

// amPIDs lists the application's running `ebb am` processes.
func (y *yarnTest) amPIDs(id yarn.AppID) []int { return y.containerPIDs(id, "am\x00--conf") }

// containerPIDs lists the application's container processes (from the
// NodeManagers' pid files) whose command line holds cmd.
func (y *yarnTest) containerPIDs(id yarn.AppID, cmd string) []int {
	var found []int
	for _, d := range strings.Split(testcluster.EnvValue(y.t, "NM_LOCAL_DIRS"), ",") {
		files, _ := filepath.Glob(filepath.Join(d, "nmPrivate", id.String(), "container_*", "*.pid"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				continue
			}
			line, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if err == nil && strings.Contains(string(line), cmd) {
				found = append(found, pid)
			}
		}
	}
	return found
}

// kill9AM kills the application's AM process with SIGKILL: no unregister,
// no cleanup, as a crashed node or the OOM killer would.
func (y *yarnTest) kill9AM(id yarn.AppID) {
	y.t.Helper()
	pid := y.amPID(id)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		y.t.Fatalf("kill -9 %d: %v", pid, err)
	}
	y.t.Logf("kill -9 of the AM of %s (pid %d)", id, pid)
}

func (y *yarnTest) stagingExists(id yarn.AppID) bool {
	y.t.Helper()
	ok, err := y.fs.Exists(yarnclient.StagingDir(y.user, id))
	if err != nil {
		y.t.Fatal(err)
	}
	return ok
}

// TestYarnDetachUnknownQueue: the RM fails an application submitted to a
// queue it does not have. ebb submit --detach waits for that verdict,
// exits non-zero with the RM's diagnostics and leaves no staging behind.
func TestYarnDetachUnknownQueue(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: nowhere
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "1", --seconds, "1"], parallelism: 1, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--detach", "--queue", "nosuch"}, amSets...)...)
	t.Logf("ebb submit --detach --queue nosuch:\n%s", out)
	if err == nil {
		t.Fatal("ebb submit --detach --queue nosuch exited 0")
	}
	id := y.appID(out)
	if r := y.report(id); r.State != yarn.StateFailed {
		t.Errorf("RM reports %s, want FAILED", r.State)
	}
	if !strings.Contains(out, "nosuch") || !strings.Contains(out, "FAILED") {
		t.Errorf("the output does not carry the RM's diagnostics naming the queue")
	}
	if y.stagingExists(id) {
		t.Errorf("staging dir %s remains", yarnclient.StagingDir(y.user, id))
	}
}

// TestYarnTrackingURLOutlivesTheAM: after the application ended, the RM's
// proxy for it and the tracking URL in its report still answer 200 (the
// AM unregistered with no URL of its own, so the RM shows its app page).
func TestYarnTrackingURLOutlivesTheAM(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: short
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "1", --seconds, "1"], parallelism: 1, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	if err != nil {
		t.Fatalf("ebb submit: %v\n%s", err, out)
	}
	id := y.appID(out)
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
		t.Fatalf("RM reports %s %s (%s)", r.State, r.Final, r.Diagnostics)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	for _, u := range []string{testcluster.RMWebURL(t) + "/proxy/" + id.String() + "/", r.TrackingURL} {
		resp, err := c.Get(u)
		if err != nil {
			t.Errorf("GET %s after the end: %v", u, err)
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s after the end: %s, want 200", u, resp.Status)
		}
	}
	t.Logf("tracking URL after the end: %s", r.TrackingURL)
}

// TestYarnLastAttemptKilled: with one attempt allowed, kill -9 of the AM
// ends the application FAILED; the client following it exits non-zero
// and removes the staging directory the AM could not; no container is
// left. A detached application killed the same way leaves its staging
// directory, and ebb clean removes it and says so.
func TestYarnLastAttemptKilled(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: doomed
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "1", --seconds, "600"], parallelism: 1, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	// amSets allow one attempt.
	type result struct {
		out string
		err error
	}
	followed := make(chan result, 1)
	go func() {
		out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
		followed <- result{out, err}
	}()
	detachedOut, err := y.ebb(ctx, append([]string{"submit", spec, "--detach"}, amSets...)...)
	if err != nil {
		t.Fatalf("ebb submit --detach: %v\n%s", err, detachedOut)
	}
	detached := y.appID(detachedOut)
	var following yarn.AppID
	y.waitFor("the followed application to appear", 60*time.Second, func() bool {
		apps, err := y.rm.Apps(ctx, []string{"EBB"}, []yarn.AppState{yarn.StateRunning, yarn.StateAccepted}, []string{y.user})
		if err != nil {
			return false
		}
		for _, a := range apps {
			if a.Name == "doomed" && a.ID != detached {
				following = a.ID
				return true
			}
		}
		return false
	})
	running := regexp.MustCompile(`: 0/1 tasks, 1 running`)
	for _, id := range []yarn.AppID{following, detached} {
		y.waitFor("the task of "+id.String()+" to run", 90*time.Second, func() bool {
			out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
			return err == nil && running.MatchString(out)
		})
		y.kill9AM(id)
	}
	res := <-followed
	t.Logf("the following ebb submit said:\n%s", res.out)
	if res.err == nil {
		t.Error("the following ebb submit exited 0 for a FAILED application")
	}
	for _, id := range []yarn.AppID{following, detached} {
		y.waitFor(id.String()+" to end", 60*time.Second, func() bool { return y.report(id).State.Done() })
		if r := y.report(id); r.State != yarn.StateFailed {
			t.Errorf("%s is %s %s after kill -9 of its only attempt, want FAILED", id, r.State, r.Final)
		}
		y.waitFor("every container of "+id.String()+" released", 60*time.Second, func() bool { return y.runningContainers(id) == 0 })
	}
	if y.stagingExists(following) {
		t.Errorf("the following client left the staging dir of %s", following)
	}
	if !y.stagingExists(detached) {
		t.Fatalf("the staging dir of the detached %s is already gone: nothing left for ebb clean to show", detached)
	}
	out, err := y.ebb(ctx, "clean")
	t.Logf("ebb clean:\n%s", out)
	if err != nil {
		t.Fatalf("ebb clean: %v", err)
	}
	if !strings.Contains(out, "removed "+yarnclient.StagingDir(y.user, detached)+": FAILED") {
		t.Errorf("ebb clean does not say it removed the staging dir of %s", detached)
	}
	if y.stagingExists(detached) {
		t.Errorf("ebb clean left the staging dir of %s", detached)
	}
}
