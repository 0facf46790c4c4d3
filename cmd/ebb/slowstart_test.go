package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// Slow start in the local world, with real workers: the reduces start
// while a map still runs (held back by a gate file the test creates only
// once it has seen both reduces running beside it), fetch the other maps'
// outputs as they finish and the held map's when it does, and the word
// count is exact. Without slow start the reduces could not start before
// the held map succeeds, so the wait below would time out.
func TestLocalSlowStartReducesRunDuringTheMaps(t *testing.T) {
	input, _ := filepath.Abs("../../examples/wordcount-input.txt")
	ta := startTestAM(t, 3*time.Minute, "ebb.local.max.nodes=4", "ebb.local.node.memory.mb=1024",
		"ebb.slowstart.completed.producers=0.05")
	gate := filepath.Join(ta.root, "gate")
	spec := fmt.Sprintf(`name: slowstart
containerGroup: {name: sg, workerMemoryMB: 512}
vertices:
  - name: map
    command: [/bin/sh, -c, 'if [ "$EBB_TASK_INDEX" = 3 ]; then while [ ! -e %s ]; do sleep 0.1; done; fi; exec %s task wc-map']
    parallelism: 4
    memoryMB: 128
    inputs: [%q]
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 128}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, gate, ebbBin, input)
	out := filepath.Join(ta.root, "out")
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "slowstart.yaml", Output: out})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ta.AM, "both reduces running beside the held map", time.Minute, func(v ui.View) bool {
		s := dagIn(v, id)
		return len(s.Vertices) == 2 && s.Vertices[0].Succeeded == 3 && s.Vertices[1].Running == 2
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ta.WaitDAG(ta.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != core.DAGSucceeded {
		t.Fatalf("DAG %s: %s", st.State, st.Diagnostics)
	}
	sameCounts(t, readCounts(t, out), countWords(t, input))
}
