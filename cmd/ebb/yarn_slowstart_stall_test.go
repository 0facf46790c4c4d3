package main

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// Issue 23, the slow-start stall, on YARN: one worker of 512 MB at most
// (mr3.container.max.num.workers=1), maps of 384 MB and sides of 128 MB
// feeding reduces of 256 MB that start under slow start once a map and a
// side have succeeded (am/core/slowstart_stall_test.go's shape, timed by
// sleeps instead of a fake world): map 0 (4 s) runs beside side 0 (at
// once) and then side 1 (8 s); when map 0 ends reduce 0 takes its room
// beside side 1, and when side 1 ends reduce 1 takes the rest. Maps 1 and
// 2 (384 MB) then fit nowhere and no worker can come, and the gathering
// reduces wait for them for ever: without the stall rule this test timed
// out. With it, the AM kills the reduces (youngest first, one per 3 s
// interval), the maps run, the reduces run again and the DAG succeeds
// with no failed attempt.
func TestYarnSlowStartStallEnds(t *testing.T) {
	y := newYarnTest(t)
	// Each producer writes its two (empty) partitions, as the task
	// contract asks (task/doc.go).
	partitions := `mkdir -p "$EBB_OUTPUT_DIR/reduce" && : > "$EBB_OUTPUT_DIR/reduce/0" && : > "$EBB_OUTPUT_DIR/reduce/1"`
	spec := y.writeDAG(fmt.Sprintf(`
name: yarn-slowstart-stall
containerGroup: {name: stall, workerMemoryMB: 512}
vertices:
  - name: map
    command: [/bin/sh, -c, 'if [ "$EBB_TASK_INDEX" = 0 ]; then sleep 4; fi; %[1]s']
    parallelism: 3
    memoryMB: 384
  - name: side
    command: [/bin/sh, -c, 'if [ "$EBB_TASK_INDEX" = 1 ]; then sleep 8; fi; %[1]s']
    parallelism: 2
    memoryMB: 128
  - {name: reduce, command: "true", parallelism: 2, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
  - {from: side, to: reduce, type: scatter-gather}
`, partitions))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--detach",
		"--set", "mr3.container.max.num.workers=1",
		"--set", "ebb.slowstart.completed.producers=0.05",
		"--set", "ebb.slowstart.preemption.percentage=10",
		"--set", "ebb.slowstart.preemption.interval.ms=3000"}, amSets...)...)
	if err != nil {
		t.Fatalf("ebb submit: %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	defer func() {
		if !t.Failed() {
			return
		}
		var gs []ui.Group
		if y.tryJSON(testcluster.RMWebURL(t)+"/proxy/"+id.String()+"/api/v1/groups", &gs) {
			for _, g := range gs {
				t.Logf("group %s at the end: %d workers, %d attempts running (%d MB), %d queued, %d killed for a stall",
					g.Name, g.Workers, g.RunningAttempts, g.TaskMB, g.QueuedAttempts, g.SlowStartKilled)
			}
		}
		t.Logf("AM log:\n%s", y.amLog(id))
	}()
	start := time.Now()
	// 8 s of sides and maps, two 3 s intervals, a worker to start: the
	// DAG ends well within 3 minutes, or hangs.
	y.waitFor("the application to end (a slow-start stall never does)", 3*time.Minute, func() bool { return y.report(id).State.Done() })
	r := y.report(id)
	log := y.amLog(id)
	kills := len(regexp.MustCompile(`killed: its producers need the room`).FindAllString(log, -1))
	failed := regexp.MustCompile(`attempt \S+ failed \(`).FindAllString(log, -1)
	t.Logf("%s %s after %s; %d reduces killed to break the stall; failed attempts: %v",
		r.State, r.Final, time.Since(start).Round(time.Second), kills, failed)
	if r.Final != yarn.Succeeded {
		t.Fatalf("application %s %s", r.State, r.Final)
	}
	if kills == 0 {
		t.Errorf("no reduce was killed: the timing missed the stall this test is about")
	}
	if len(failed) > 0 {
		t.Errorf("failed attempts %v: a killed consumer is not a failure", failed)
	}
}
