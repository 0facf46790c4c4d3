package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// The local world with autoscaling: a burst of memory-heavy map tasks
// scales the group out onto more nodes; during the long thin tail that
// follows, usage falls, nodes are drained and removed; the result is exact.
func TestLocalAutoscaleBurstThenTail(t *testing.T) {
	input, _ := filepath.Abs("../../examples/wordcount-input.txt")
	// burst: 8 tasks x 400 MB, each burning memory for 3 s before counting;
	// mid: one reducer; tail: one task that sleeps 8 s, then copies mid's
	// counts to the output. Workers are 1024 MB, nodes 2048 MB. burn reads
	// the split too (it copies it through), then wc-map reads it again: a
	// streamed split can be read once, so burst copies its splits to files.
	spec := fmt.Sprintf(`name: burst-tail
containerGroup: {name: bt, workerMemoryMB: 1024}
vertices:
  - name: burst
    command: [/bin/sh, -c, "%[1]s task burn --memory-mb 64 --seconds 3 && exec %[1]s task wc-map"]
    parallelism: 8
    memoryMB: 400
    inputs: [%[2]q]
    inputMode: file
  - {name: mid, command: [ebb, task, wc-reduce], parallelism: 1, memoryMB: 256}
  - name: tail
    command: [/bin/sh, -c, "sleep 8 && exec %[1]s task cat"]
    parallelism: 1
    memoryMB: 256
edges:
  - {from: burst, to: mid, type: scatter-gather}
  - {from: mid, to: tail, type: one-to-one}
`, ebbBin, input)
	ta := startTestAM(t, 3*time.Minute,
		"mr3.enable.auto.scaling=true",
		"mr3.check.memory.usage.event.interval.secs=1",
		"mr3.memory.usage.check.window.length.secs=2",
		"mr3.auto.scale.out.threshold.percent=70",
		"mr3.auto.scale.in.threshold.percent=30",
		"mr3.auto.scale.out.num.initial.containers=1",
		"mr3.auto.scale.out.num.increment.containers=2",
		"mr3.auto.scale.out.grace.period.secs=2",
		"mr3.auto.scale.in.delay.after.scale.out.secs=1",
		"mr3.auto.scale.in.grace.period.secs=2",
		"mr3.auto.scale.in.min.hosts=1",
		"mr3.auto.scale.in.num.decrement.hosts=1",
		"mr3.auto.scale.in.wait.dag.finished=false",
		"mr3.container.idle.timeout.ms=600000",
		"ebb.local.nodes=1", "ebb.local.max.nodes=4", "ebb.local.node.memory.mb=2048",
		"ebb.local.node.idle.timeout.ms=500", "ebb.packing.scheme=packed",
		// The phases above assume mid starts after the whole burst; with
		// slow start it starts during the burst, which changes where
		// attempts and outputs sit when the tail runs. This test is about
		// the autoscaler's phases, so it keeps the all-producers rule.
		"ebb.slowstart.completed.producers=1",
	)
	a, world, root, ctx := ta.AM, ta.world, ta.root, ta.ctx

	out := filepath.Join(root, "out")
	id, err := a.Submit(ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "burst-tail.yaml", Output: out})
	if err != nil {
		t.Fatal(err)
	}
	// Watch the nodes while the DAG runs (a condition poll, not a timing
	// assertion): the most nodes at once, and whether any went away.
	maxNodes, removedDuringTail := 0, false
	ended := make(chan core.DAGStatus, 1)
	go func() {
		s, _ := a.WaitDAG(ctx, id)
		ended <- s
	}()
	var st core.DAGStatus
	for done := false; !done; {
		select {
		case st = <-ended:
			done = true
		case <-time.After(100 * time.Millisecond):
			err := a.Loop().View(ctx, func(v ui.View) {
				n := len(world.Nodes())
				maxNodes = max(maxNodes, n)
				s := dagIn(v, id)
				if n < maxNodes && len(s.Vertices) == 3 && s.Vertices[1].Succeeded == 1 && s.Vertices[2].Succeeded == 0 {
					removedDuringTail = true
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("the DAG did not end in time")
		}
	}
	if st.State != core.DAGSucceeded {
		t.Fatalf("DAG %s: %s", st.State, st.Diagnostics)
	}
	var states []string
	err = a.Loop().View(ctx, func(v ui.View) {
		for _, tr := range v.Transitions() {
			states = append(states, tr.From+"→"+tr.To)
			t.Logf("%s %s: %s → %s: %s", tr.At.Format("15:04:05.000"), tr.Group, tr.From, tr.To, tr.Reason)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	seq := strings.Join(states, " ")
	out1 := strings.Index(seq, "STABLE→SCALE_OUT")
	in1 := strings.LastIndex(seq, "STABLE→SCALE_IN")
	if out1 < 0 || in1 < 0 || in1 < out1 {
		t.Fatalf("transitions %q: want a scale-out, then later a scale-in", seq)
	}
	if maxNodes < 2 {
		t.Errorf("at most %d node(s) in use: the burst should have scaled out onto more nodes", maxNodes)
	}
	if !removedDuringTail {
		t.Errorf("no node was removed during the tail (max %d nodes)", maxNodes)
	}
	sameCounts(t, readCounts(t, out), countWords(t, input))
}
