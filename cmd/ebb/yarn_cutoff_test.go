package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// cutOffDAG: a sink of two tasks, one attempt per worker. Each attempt
// writes its worker's pid (the task's parent) to a file of the test's,
// sleeps 3 s and leaves one result named for its attempt number: a file
// of the attempt cut off would be a0-00000, its re-run's a1-00000 (or
// later), so a late commit by the cut-off worker shows as a name.
const cutOffDAG = `
name: %s
containerGroup: {name: g, workerMemoryMB: 256}
output: %s
vertices:
  - name: v
    command: 'echo $PPID > %s/$EBB_TASK_INDEX-$EBB_ATTEMPT.tmp && mv %s/$EBB_TASK_INDEX-$EBB_ATTEMPT.tmp %s/$EBB_TASK_INDEX-$EBB_ATTEMPT; sleep 3; echo $EBB_TASK_INDEX $EBB_ATTEMPT > $EBB_OUTPUT_DIR/a$EBB_ATTEMPT'
    parallelism: 2
    memoryMB: 256
`

// cutOffTimeout is mr3.heartbeat.container.timeout.ms for the test: the
// worker is stopped for longer, so that the AM loses it.
const cutOffTimeout = 5 * time.Second

var lostRe = regexp.MustCompile(`worker (\S+) lost \(no heartbeat for`)

// TestYarnWorkerCutOff is issue 33's worker cut off: the worker running
// task 0's first attempt is stopped (SIGSTOP) while its task goes on and
// finishes, past the AM's worker timeout. The AM loses it and runs the
// task again on another worker; at once then the worker is woken
// (SIGCONT), its task's files ready to commit, before YARN kills its
// released container. It must fence itself: commit nothing, exit; the
// AM refuses whatever it still sends. The DAG succeeds with the re-run's
// result and the other task's, and no file of the attempt cut off
// anywhere under the output.
func TestYarnWorkerCutOff(t *testing.T) {
	testcluster.Exclusive(t)
	y := newYarnTest(t)
	pids := t.TempDir()
	out := y.dir + "/out"
	name := fmt.Sprintf("cutoff-%d", time.Now().UnixNano())
	spec := y.writeDAG(fmt.Sprintf(cutOffDAG, name, y.fs.URL(out), pids, pids, pids))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", fmt.Sprintf("mr3.heartbeat.container.timeout.ms=%d", cutOffTimeout.Milliseconds()))
	id, followed := y.submitFollowed(ctx, name, append([]string{spec}, sets...)...)

	var pid int
	y.waitFor("task 0's first attempt to start", 90*time.Second, func() bool {
		b, err := os.ReadFile(filepath.Join(pids, "0-0"))
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil || !strings.Contains(string(cmd), "worker") {
		t.Fatalf("task 0's parent %d is not an ebb worker (%q, %v)", pid, cmd, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %d: %v", pid, err)
	}
	stopped := time.Now()
	t.Logf("SIGSTOP of worker pid %d (running task 0's attempt 0)", pid)
	woken := false
	wake := func() {
		if !woken {
			woken = true
			_ = syscall.Kill(pid, syscall.SIGCONT) // it may be gone: YARN killed it
		}
	}
	defer wake()

	var lostWorker string
	waitUntil(t, "the AM to lose the stopped worker", 60*time.Second, 20*time.Millisecond, func() bool {
		if m := lostRe.FindStringSubmatch(y.amLog(id)); m != nil {
			lostWorker = m[1]
			return true
		}
		return false
	})
	wake()
	lostAfter := time.Since(stopped)
	t.Logf("the AM lost worker %s %s after the SIGSTOP; SIGCONT at once", lostWorker, lostAfter.Round(time.Millisecond))

	y.waitFor("the woken worker to exit", 60*time.Second, func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		return err != nil
	})
	exited := time.Since(stopped)
	res := <-followed
	y.wantSucceeded(t, id, res, false)

	fencedSelf := y.amLogSays(id, "fenced: this worker could not heartbeat")
	refused := strings.Count(y.amLog(id), "; fenced")
	var reruns []string
	entries, _ := os.ReadDir(pids)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "0-") && e.Name() != "0-0" {
			reruns = append(reruns, e.Name())
		}
	}
	sort.Strings(reruns)
	t.Logf("worker stopped %s, lost by the AM at +%s, exited at +%s; task 0 re-run as %v; the worker fenced itself: %v; reports refused by the AM: %d",
		cutOffTimeout, lostAfter.Round(time.Millisecond), exited.Round(time.Millisecond), reruns, fencedSelf, refused)
	if len(reruns) == 0 {
		t.Errorf("task 0 was not run again after its worker was lost")
	}

	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	want := map[string]string{"a0-00001": "1 0\n"}
	for _, r := range reruns {
		n := strings.TrimPrefix(r, "0-")
		want["a"+n+"-00000"] = "0 " + n + "\n"
	}
	for f, body := range got {
		if want[f] != body {
			t.Errorf("output file %s holds %q, want %q (a file of the attempt cut off, a0-00000, must never appear)", f, body, want[f])
		}
	}
	// Exactly one re-run commits; an earlier one may have been lost too.
	if _, ok := got["a0-00001"]; !ok || len(got) != 2 {
		t.Errorf("output holds %v, want task 1's result and one re-run of task 0's", keysOf(got))
	}
	if !fencedSelf {
		t.Errorf("the woken worker did not fence itself (no \"fenced:\" line in the application's logs)")
	}
}
