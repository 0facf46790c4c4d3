package main

import (
	"context"
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

// TestYarnKill: ebb kill of a running application ends it KILLED within a
// few heartbeats, with every container released.
func TestYarnKill(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: long
containerGroup: {name: sleepers, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "600"], parallelism: 2, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--detach"}, amSets...)...)
	if err != nil {
		t.Fatalf("ebb submit --detach: %v\n%s", err, out)
	}
	id := y.appID(out)
	// Both tasks running (in one worker: 2 × 128 MB fit in 256 MB), seen
	// through the AM's client API, found by application id.
	running := regexp.MustCompile(`: 0/2 tasks, 2 running`)
	y.waitFor("both tasks to run", 60*time.Second, func() bool {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		return err == nil && running.MatchString(out)
	})
	if n := y.runningContainers(id); n < 2 {
		t.Fatalf("the RM counts %d running containers, want the AM and a worker", n)
	}
	start := time.Now()
	out, err = y.ebb(ctx, "kill", id.String())
	took := time.Since(start)
	if err != nil {
		t.Fatalf("ebb kill: %v\n%s", err, out)
	}
	if !strings.Contains(out, "KILLED") {
		t.Errorf("ebb kill says %q", out)
	}
	if r := y.report(id); r.State != yarn.StateKilled {
		t.Errorf("RM reports %s %s, want KILLED", r.State, r.Final)
	}
	t.Logf("ebb kill took %s", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("ebb kill took %s, more than a few heartbeats", took)
	}
	y.waitFor("every container released", 30*time.Second, func() bool { return y.runningContainers(id) == 0 })
	if ok, err := y.fs.Exists(yarnclient.StagingDir(y.user, id)); err != nil || ok {
		t.Errorf("staging dir %s still exists (%v)", yarnclient.StagingDir(y.user, id), err)
	}
}

// TestYarnSIGTERM: a SIGTERM to the AM process (as the NM or an operator
// sends) makes it stop its workers and unregister: the application ends
// KILLED with the AM's own diagnostics, not FAILED by a vanished attempt.
func TestYarnSIGTERM(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: long
containerGroup: {name: sleepers, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "600"], parallelism: 1, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--detach"}, amSets...)...)
	if err != nil {
		t.Fatalf("ebb submit --detach: %v\n%s", err, out)
	}
	id := y.appID(out)
	// Cleanup: the test has its verdict, and an ended application cannot be killed.
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	running := regexp.MustCompile(`: 0/1 tasks, 1 running`)
	y.waitFor("the task to run", 60*time.Second, func() bool {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		return err == nil && running.MatchString(out)
	})
	// The NM writes the pid of the container's process under its local
	// dirs; the AM is the attempt's first container.
	var pidFiles []string
	amContainer := strings.Replace(id.String(), "application_", "container_", 1) + "_01_000001"
	for _, d := range strings.Split(testcluster.EnvValue(t, "NM_LOCAL_DIRS"), ",") {
		fs, _ := filepath.Glob(filepath.Join(d, "nmPrivate", id.String(), amContainer, "*.pid"))
		pidFiles = append(pidFiles, fs...)
	}
	if len(pidFiles) != 1 {
		t.Fatalf("AM pid files %v, want one", pidFiles)
	}
	b, err := os.ReadFile(pidFiles[0])
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil {
		t.Fatalf("pid file %s: %v %v", pidFiles[0], err, perr)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM to the AM (pid %d): %v", pid, err)
	}
	y.waitFor("the application to end", 30*time.Second, func() bool { return y.report(id).State.Done() })
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Killed || !strings.Contains(r.Diagnostics, "SIGTERM") {
		t.Errorf("after SIGTERM the application is %s %s (%s), want FINISHED KILLED by the AM", r.State, r.Final, r.Diagnostics)
	}
	y.waitFor("every container released", 30*time.Second, func() bool { return y.runningContainers(id) == 0 })
	if ok, err := y.fs.Exists(yarnclient.StagingDir(y.user, id)); err != nil || ok {
		t.Errorf("staging dir %s still exists (%v)", yarnclient.StagingDir(y.user, id), err)
	}
}
