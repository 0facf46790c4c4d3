package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nmRecoveryDAG: five tasks of 2048 MB in workers of 2048 MB, spread over
// the three NodeManagers; each says it started (a file of the test's,
// named task-attempt) and holds on until the test releases it, so that
// every one is running while a NodeManager restarts.
const nmRecoveryDAG = `
name: %s
containerGroup: {name: g, workerMemoryMB: 2048}
output: %s
vertices:
  - name: v
    command: 'touch %s/$EBB_TASK_INDEX-$EBB_ATTEMPT; while [ ! -e %s ]; do sleep 0.1; done; echo $EBB_TASK_INDEX > $EBB_OUTPUT_DIR/r'
    parallelism: 5
    memoryMB: 2048
`

// nmDown is how long the restarted NodeManager stays stopped.
const nmDown = 3 * time.Second

// TestYarnNodeManagerRecovery is issue 33's NodeManager restart with
// recovery: the faults cluster's NodeManagers run with
// yarn.nodemanager.recovery.enabled and .supervised, on fixed ports, each
// with its own state store. A NodeManager running workers (not the AM's)
// is stopped while their tasks run and started again: the workers go on
// (their streams to the AM do not pass through the NodeManager), the
// restarted NodeManager takes their containers back, and the AM keeps
// them: no worker lost, no attempt run again, the DAG succeeds with each
// task's result once.
func TestYarnNodeManagerRecovery(t *testing.T) {
	f := newFaultDAG(t, "nmrecovery")
	y, ctl := f.y, f.ctl
	release := filepath.Join(t.TempDir(), "release")
	out := y.dir + "/out"
	spec := y.writeDAG(fmt.Sprintf(nmRecoveryDAG, f.name, y.fs.URL(out), f.started, release))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id, followed := f.submitSpread(ctx, spec)
	f.waitStarted("five tasks to start", 5)
	nm, node, workers := f.workerNodeManager(t, id)
	nmHTTP := ctl.Env()["NM"+strconv.Itoa(nm)+"_HTTP"]
	stop := time.Now()
	if err := ctl.StopNodeManager(ctx, nm); err != nil {
		t.Fatal(err)
	}
	time.Sleep(nmDown) // the fault's length, not a wait for a condition
	if err := ctl.StartNodeManager(ctx, nm); err != nil {
		t.Fatal(err)
	}
	away := time.Since(stop)
	// The restarted NodeManager recovered the workers' containers from
	// its state store and found their processes alive; a container it
	// does not know or that ended was not kept.
	var states []string
	gone := false
	waitUntil(t, "NodeManager "+node+" to report the workers' containers RUNNING again (or ended)", 60*time.Second, 200*time.Millisecond, func() bool {
		states, gone = states[:0], false
		running := 0
		for _, w := range workers {
			st, code := y.nmContainer(nmHTTP, w)
			states = append(states, fmt.Sprintf("%s %s (HTTP %d)", w, st, code))
			switch {
			case st == "RUNNING":
				running++
			case code == http.StatusNotFound, strings.Contains(st, "EXITED"), strings.Contains(st, "KILL"),
				strings.Contains(st, "CLEAN"), st == "DONE":
				gone = true
			}
		}
		return running == len(workers) || gone
	})
	if gone {
		t.Errorf("NodeManager %s did not take the workers' containers back after its restart: %v", node, states)
	}
	recovered := fmt.Sprintf("its workers' containers RUNNING again %s after the stop", time.Since(stop).Round(time.Millisecond))
	if gone {
		recovered = "its workers' containers gone"
	}
	touch(t, release)
	res := <-followed
	y.wantSucceeded(t, id, res, false)
	log := y.amLog(id)
	lost, kept := 0, 0
	for _, ws := range workersByNode(log) {
		for _, w := range ws {
			if strings.Contains(log, "worker "+w+" lost") {
				lost++
			}
		}
	}
	for _, w := range workers {
		if !strings.Contains(log, "worker "+w+" lost") {
			kept++
		}
	}
	reruns, failed := f.reruns(), failedAttempts(res.out)
	t.Logf("NodeManager %d (%s) was away %s (%s); workers kept there: %d of %d %v; workers lost: %d; attempts re-run (task-attempt): %v; failed attempts: %d",
		nm, node, away.Round(time.Millisecond), recovered, kept, len(workers), workers, lost, reruns, failed)
	if lost != 0 || kept != len(workers) {
		t.Errorf("%d workers lost, want 0: the NodeManager's restart kept their containers", lost)
	}
	if len(reruns) != 0 || failed != 0 {
		t.Errorf("attempts re-run %v, failed %d; want none", reruns, failed)
	}
	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	wantTaskResults(t, got, 5)
	if len(got) != 5 {
		t.Errorf("output %v, want five results", keysOf(got))
	}
}
