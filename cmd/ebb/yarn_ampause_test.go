package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/conf"
)

// pausedAMDAG: a sink of two tasks that say they started (a file of the
// test's each), sleep 4 s and leave one result each.
const pausedAMDAG = `
name: %s
containerGroup: {name: g, workerMemoryMB: 256}
output: %s
vertices:
  - name: v
    command: 'touch %s/$EBB_TASK_INDEX-$EBB_ATTEMPT; sleep 4; echo $EBB_TASK_INDEX > $EBB_OUTPUT_DIR/r'
    parallelism: 2
    memoryMB: 256
`

// TestYarnAMPaused is issue 33's AM cut off: attempt 1 of the AM is
// stopped (SIGSTOP) while its DAG's two tasks run; they finish and report
// to it while it sleeps. The RM expires it
// (yarn.am.liveness-monitor.expiry-interval-ms) and starts attempt 2; the
// moment the RM reports attempt 2, attempt 1 is woken (SIGCONT), before
// its NodeManager kills it. It finds its DAG succeeded, but must not
// commit: the RM no longer knows it, so it promotes nothing and removes
// nothing. Attempt 2 recovers the DAG and commits the output whole.
func TestYarnAMPaused(t *testing.T) {
	y, _ := newFaultsTest(t)
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(k string) string {
		if k == "HADOOP_CONF_DIR" {
			return y.confDir
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	expiry, err := c.AMLiveness()
	if err != nil {
		t.Fatal(err)
	}
	if expiry > 30*time.Second {
		t.Fatalf("the faults cluster's %s is %s: this test needs 30 s or less (internal/testcluster/faultsargs sets it)", conf.AMLivenessKey, expiry)
	}
	started := t.TempDir()
	out := y.dir + "/out"
	name := fmt.Sprintf("ampause-%d", time.Now().UnixNano())
	spec := y.writeDAG(fmt.Sprintf(pausedAMDAG, name, y.fs.URL(out), started))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", "mr3.am.max.app.attempts=2")
	id, followed := y.submitFollowed(ctx, name, append([]string{spec}, sets...)...)
	y.waitFor("both tasks to start", 90*time.Second, func() bool {
		_, e0 := os.Stat(filepath.Join(started, "0-0"))
		_, e1 := os.Stat(filepath.Join(started, "1-0"))
		return e0 == nil && e1 == nil
	})
	pid := y.amPID(id)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %d: %v", pid, err)
	}
	stopped := time.Now()
	woken := false
	wake := func() error {
		if woken {
			return nil
		}
		woken = true
		return syscall.Kill(pid, syscall.SIGCONT)
	}
	defer func() { _ = wake() }()
	t.Logf("SIGSTOP of AM attempt 1 (pid %d); the RM expires an AM after %s", pid, expiry)
	waitUntil(t, "the RM to start AM attempt 2", expiry+time.Minute, 20*time.Millisecond, func() bool {
		return y.report(id).Attempt >= 2
	})
	second := time.Since(stopped)
	wakeErr := wake()
	t.Logf("attempt 2 started %s after the SIGSTOP; SIGCONT of attempt 1: %v", second.Round(time.Millisecond), wakeErr)

	res := <-followed
	y.wantSucceeded(t, id, res, true)
	log1 := y.amLogOf(id, 1)
	log2 := y.amLogOf(id, 2)
	superseded := strings.Contains(log1, "superseded:")
	committed1 := strings.Contains(log1, "output committed to")
	var runs []string
	entries, _ := os.ReadDir(started)
	for _, e := range entries {
		runs = append(runs, e.Name())
	}
	t.Logf("attempt 1 woke and found itself superseded: %v; attempt 1 committed: %v; attempt 2 committed: %v; task runs (task-attempt): %v",
		superseded, committed1, strings.Contains(log2, "output committed to"), runs)
	if committed1 {
		t.Errorf("AM attempt 1 committed the output after the RM had started attempt 2:\n%s", tail(log1, 30))
	}
	if wakeErr == nil && !superseded {
		// It was alive when woken: it must have said why it committed nothing
		// (or the NodeManager killed it before it ran again).
		t.Logf("attempt 1's log ends:\n%s", tail(log1, 15))
	}
	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	want := map[string]string{"r-00000": "0\n", "r-00001": "1\n"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("output %v, want %v", got, want)
	}
}
