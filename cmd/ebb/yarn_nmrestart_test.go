package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// nmRestartDAG: six tasks of 2048 MB in workers of 2048 MB, spread over
// the three NodeManagers; each says it started (a file of the test's,
// named task-attempt), runs 8 s and leaves its result.
const nmRestartDAG = `
name: %s
containerGroup: {name: g, workerMemoryMB: 2048}
output: %s
vertices:
  - name: v
    command: 'touch %s/$EBB_TASK_INDEX-$EBB_ATTEMPT; sleep 8; echo $EBB_TASK_INDEX > $EBB_OUTPUT_DIR/r'
    parallelism: 6
    memoryMB: 2048
`

// TestYarnNodeManagerRestart is issue 33's NodeManager restart without NM
// recovery: a NodeManager running workers (not the AM's) is stopped
// mid-DAG as one without (supervised) recovery stops, killing its
// containers (the faults cluster's NodeManagers have recovery on:
// StopNodeManagerKilling), and started again once the AM has lost them. The
// loss is a lost worker's: its attempts run again elsewhere, none counted
// as failed, and the DAG succeeds with each task's result once.
func TestYarnNodeManagerRestart(t *testing.T) {
	f := newFaultDAG(t, "nmrestart")
	y, ctl := f.y, f.ctl
	out := y.dir + "/out"
	spec := y.writeDAG(fmt.Sprintf(nmRestartDAG, f.name, y.fs.URL(out), f.started))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id, followed := f.submitSpread(ctx, spec)
	f.waitStarted("five tasks to start", 5)
	nm, node, workers := f.workerNodeManager(t, id)
	stop := time.Now()
	if err := ctl.StopNodeManagerKilling(ctx, nm); err != nil {
		t.Fatal(err)
	}
	t.Logf("NodeManager %d (%s, workers %v) stopped in %s", nm, node, workers, time.Since(stop).Round(time.Millisecond))
	lost := 0
	waitUntil(t, "the AM to lose the workers of "+node, 90*time.Second, 100*time.Millisecond, func() bool {
		log := y.amLog(id)
		lost = 0
		for _, w := range workers {
			if strings.Contains(log, "worker "+w+" lost") {
				lost++
			}
		}
		return lost == len(workers)
	})
	lostAfter := time.Since(stop)
	if err := ctl.StartNodeManager(ctx, nm); err != nil {
		t.Fatal(err)
	}
	away := time.Since(stop)
	res := <-followed
	y.wantSucceeded(t, id, res, false)
	reruns, failed := f.reruns(), failedAttempts(res.out)
	t.Logf("the AM lost the %d workers of %s %s after the stop; the NodeManager was away %s; attempts re-run (task-attempt): %v; failed attempts: %d",
		lost, node, lostAfter.Round(time.Millisecond), away.Round(time.Millisecond), reruns, failed)
	if failed != 0 {
		t.Errorf("%d failed attempts, want 0: a lost worker's attempts are not the tasks' failures", failed)
	}
	if len(reruns) == 0 {
		t.Errorf("no attempt ran again: the stop killed nothing the DAG needed")
	}
	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	wantTaskResults(t, got, 6)
	if len(got) != 6 {
		t.Errorf("output %v, want six results", keysOf(got))
	}
}
