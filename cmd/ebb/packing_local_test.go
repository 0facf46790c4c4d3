package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// nodesUsed runs word count with 8 map tasks on the local world (4 empty
// nodes of 2048 MB, 1024 MB workers, autoscaling on) under an allocation
// scheme, and returns the most nodes that held workers at once.
func nodesUsed(t *testing.T, scheme string) int {
	t.Helper()
	input, _ := filepath.Abs("../../examples/wordcount-input.txt")
	spec := fmt.Sprintf(`name: pack
containerGroup: {name: pk, workerMemoryMB: 1024}
vertices:
  - {name: map, command: [/bin/sh, -c, "sleep 1 && exec %s task wc-map"], parallelism: 8, memoryMB: 512, inputs: [%q]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 512}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, ebbBin, input)
	ta := startTestAM(t, 2*time.Minute,
		"ebb.packing.scheme="+scheme,
		"ebb.packing.min.nodes=1",
		// A node may fill up completely in the medium step.
		"ebb.packing.high.threshold.percent=100",
		"mr3.enable.auto.scaling=true",
		"mr3.check.memory.usage.event.interval.secs=1",
		"ebb.local.nodes=4", "ebb.local.max.nodes=4", "ebb.local.node.memory.mb=2048",
	)
	a, world, root, ctx := ta.AM, ta.world, ta.root, ta.ctx
	out := filepath.Join(root, "out")
	id, err := a.Submit(ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "pack.yaml", Output: out})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan core.DAGStatus, 1)
	go func() { s, _ := a.WaitDAG(ctx, id); ended <- s }()
	most := 0
	for {
		select {
		case st := <-ended:
			if st.State != core.DAGSucceeded {
				t.Fatalf("%s: DAG %s: %s", scheme, st.State, st.Diagnostics)
			}
			sameCounts(t, readCounts(t, out), countWords(t, input))
			return most
		case <-time.After(50 * time.Millisecond):
			err := a.Loop().View(ctx, func(ui.View) {
				used := 0
				for _, n := range world.Nodes() {
					if len(n.Workers) > 0 {
						used++
					}
				}
				most = max(most, used)
			})
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the DAG did not end", scheme)
		}
	}
}

// Packed placement of new workers fills medium nodes before empty ones, so
// the same work holds fewer nodes than uniform spreading; both are exact.
func TestLocalPackedUsesFewerNodes(t *testing.T) {
	uniform := nodesUsed(t, "uniform")
	packed := nodesUsed(t, "packed")
	t.Logf("nodes holding workers at most: uniform %d, packed %d", uniform, packed)
	// 8 x 512 MB = 4 workers of 1024 MB: uniform spreads them over the 4
	// empty nodes; packed puts 2 on each of 2 nodes (2048 MB each).
	if packed >= uniform {
		t.Fatalf("packed used %d nodes, uniform %d: want fewer with packed", packed, uniform)
	}
	if packed != 2 {
		t.Errorf("packed used %d nodes, want 2", packed)
	}
}
