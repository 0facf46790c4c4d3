package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
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
	y, ctl := newFaultsTest(t)
	started := t.TempDir()
	out := y.dir + "/out"
	name := fmt.Sprintf("nmrestart-%d", time.Now().UnixNano())
	spec := y.writeDAG(fmt.Sprintf(nmRestartDAG, name, y.fs.URL(out), started))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", "ebb.packing.scheme=uniform")
	id, followed := y.submitFollowed(ctx, name, append([]string{spec}, sets...)...)
	y.waitFor("five tasks to start", 90*time.Second, func() bool {
		es, _ := os.ReadDir(started)
		return len(es) >= 5
	})
	// A NodeManager with workers that is not the AM's.
	amNode, byNode := y.amNode(id), workersByNode(y.amLog(id))
	env := ctl.Env()
	nm := -1
	for i := range 3 {
		n := env["NM"+strconv.Itoa(i)+"_NODE_ID"]
		if n != amNode && len(byNode[n]) > 0 {
			nm = i
			break
		}
	}
	if nm < 0 {
		t.Fatalf("no NodeManager but the AM's (%s) has workers: %v", amNode, byNode)
	}
	node := env["NM"+strconv.Itoa(nm)+"_NODE_ID"]
	stop := time.Now()
	if err := ctl.StopNodeManagerKilling(ctx, nm); err != nil {
		t.Fatal(err)
	}
	t.Logf("NodeManager %d (%s, workers %v) stopped in %s", nm, node, byNode[node], time.Since(stop).Round(time.Millisecond))
	lost := 0
	waitUntil(t, "the AM to lose the workers of "+node, 90*time.Second, 100*time.Millisecond, func() bool {
		log := y.amLog(id)
		lost = 0
		for _, w := range byNode[node] {
			if strings.Contains(log, "worker "+w+" lost") {
				lost++
			}
		}
		return lost == len(byNode[node])
	})
	lostAfter := time.Since(stop)
	if err := ctl.StartNodeManager(ctx, nm); err != nil {
		t.Fatal(err)
	}
	away := time.Since(stop)
	res := <-followed
	y.wantSucceeded(t, id, res, false)
	var reruns []string
	es, _ := os.ReadDir(started)
	for _, e := range es {
		if !strings.HasSuffix(e.Name(), "-0") {
			reruns = append(reruns, e.Name())
		}
	}
	sort.Strings(reruns)
	failed := -1
	if m := failedAttemptsRe.FindStringSubmatch(res.out); m != nil {
		failed, _ = strconv.Atoi(m[1])
	}
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
	for i := range 6 {
		if got[fmt.Sprintf("r-%05d", i)] != fmt.Sprintf("%d\n", i) {
			t.Errorf("task %d's result: %q", i, got[fmt.Sprintf("r-%05d", i)])
		}
	}
	if len(got) != 6 {
		t.Errorf("output %v, want six results", keysOf(got))
	}
}
