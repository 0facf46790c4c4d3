package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// nnRestartDAG: four sink tasks that say they started, run 3 s and leave
// a result each: their commits fall while the NameNode is away.
const nnRestartDAG = `
name: %s
containerGroup: {name: g, workerMemoryMB: 512}
output: %s
vertices:
  - name: v
    command: 'touch %s/$EBB_TASK_INDEX-$EBB_ATTEMPT; sleep 3; echo $EBB_TASK_INDEX > $EBB_OUTPUT_DIR/r'
    parallelism: 4
    memoryMB: 256
`

// nnDown is how long the NameNode stays away.
const nnDown = 20 * time.Second

// TestYarnNameNodeRestart is issue 33's NameNode restart: the NameNode is
// stopped while a DAG's sink tasks run and started again nnDown later, so
// their commits meet it away. Within dfs.client.retry.policy.spec's bound
// (60 s here) the commits wait it out and the DAG succeeds with its output
// whole; with a bound far shorter than the restart (2 s) the DAG fails
// with a line naming HDFS and the bound, and no result of it is visible.
func TestYarnNameNodeRestart(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		succeed    bool
	}{
		{"outlasted", "1000,60", true},
		// Each of a task's three attempts (mr3.am.task.max.failed.attempts)
		// gives up after 2 s: all three within the restart.
		{"past the bound", "1000,2", false},
	} {
		t.Run(tc.name, func(t *testing.T) { nnRestart(t, tc.spec, tc.succeed) })
	}
}

func nnRestart(t *testing.T, retrySpec string, succeed bool) {
	y, ctl := newFaultsTest(t)
	started := t.TempDir()
	out := y.dir + "/out"
	name := fmt.Sprintf("nnrestart-%d", time.Now().UnixNano())
	dagSpec := y.writeDAG(fmt.Sprintf(nnRestartDAG, name, y.fs.URL(out), started))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", "dfs.client.retry.policy.spec="+retrySpec)
	id, followed := y.submitFollowed(ctx, name, append([]string{dagSpec}, sets...)...)
	y.waitFor("four tasks to start", 90*time.Second, func() bool {
		es, _ := os.ReadDir(started)
		return len(es) >= 4
	})
	stop := time.Now()
	if err := ctl.StopNameNode(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctl.StartNameNode(context.Background()) })
	time.Sleep(nnDown) // the fault's length, not a wait for a condition
	if err := ctl.StartNameNode(ctx); err != nil {
		t.Fatal(err)
	}
	away := time.Since(stop)
	res := <-followed
	t.Logf("the NameNode was away %s; %s=%s", away.Round(time.Millisecond), "dfs.client.retry.policy.spec", retrySpec)
	if !succeed {
		t.Logf("the following ebb submit said (%v):\n%s", res.err, res.out)
		if r := y.report(id); r.Final != yarn.Failed || !strings.Contains(r.Diagnostics, "HDFS unavailable") || !strings.Contains(r.Diagnostics, "dfs.client.retry.policy.spec") {
			t.Errorf("application %s %s (%s), want FAILED naming HDFS unavailable and the bound", r.State, r.Final, r.Diagnostics)
		}
		if ok, err := y.fs.Exists(out); err != nil || !ok {
			return // nothing there at all
		}
		for f := range y.hdfsTree(out) {
			if !strings.HasPrefix(f, "_") { // readers skip _temporary and markers
				t.Errorf("the failed DAG left %s in its output", f)
			}
		}
		return
	}
	y.wantSucceeded(t, id, res, false)
	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	for i := range 4 {
		if got[fmt.Sprintf("r-%05d", i)] != fmt.Sprintf("%d\n", i) {
			t.Errorf("task %d's result: %q", i, got[fmt.Sprintf("r-%05d", i)])
		}
	}
}
