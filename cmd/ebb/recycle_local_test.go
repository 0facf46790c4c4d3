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

// runAlternating runs 10 one-task DAGs that alternate between two groups
// of one kind, one DAG at a time (all submitted at once, with one
// concurrent DAG), under a recycling scheme, and returns how many worker
// processes were started and how many workers changed group.
func runAlternating(t *testing.T, scheme string) (processes, moved int) {
	t.Helper()
	ta := startTestAM(t, 2*time.Minute,
		"mr3.container.scheduler.scheme="+scheme,
		"mr3.am.max.num.concurrent.dags=1",
		// Free workers leave at the next tick (100 ms) unless recycled;
		// each DAG runs 500 ms, so without recycling the group's worker is
		// gone before the group's next DAG: every DAG needs a new worker.
		"mr3.container.idle.timeout.ms=1",
		"mr3.check.memory.usage.event.interval.secs=1",
		"ebb.local.nodes=1", "ebb.local.max.nodes=2", "ebb.local.node.memory.mb=2048",
	)
	a, world, root, ctx := ta.AM, ta.world, ta.root, ta.ctx
	var ids []string
	for i := 0; i < 10; i++ {
		group := []string{"etl-a", "etl-b"}[i%2]
		spec := fmt.Sprintf(`name: d%d
containerGroup: {name: %s, workerMemoryMB: 1024}
vertices: [{name: v, command: "sleep 0.5", parallelism: 2, memoryMB: 512}]
`, i, group)
		id, err := a.Submit(ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: fmt.Sprintf("d%d.yaml", i), Output: filepath.Join(root, "out", fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		st, err := a.WaitDAG(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != core.DAGSucceeded {
			t.Fatalf("%s: %s %s", id, st.State, st.Diagnostics)
		}
	}
	if err := a.Loop().View(ctx, func(ui.View) { processes, moved = world.Started() }); err != nil {
		t.Fatal(err)
	}
	return processes, moved
}

func TestLocalRecyclingSavesWorkers(t *testing.T) {
	none, _ := runAlternating(t, "none")
	fifo, fifoMoved := runAlternating(t, "fifo")
	fair, fairMoved := runAlternating(t, "fair")
	t.Logf("worker processes started for 10 alternating DAGs: none %d, fifo %d (%d moves), fair %d (%d moves)", none, fifo, fifoMoved, fair, fairMoved)
	if none < 10 {
		t.Errorf("none started %d workers, want one per DAG (10)", none)
	}
	if fifo*10 > none || fifoMoved < 9 {
		t.Errorf("fifo started %d workers (moved %d): want at least 10x fewer than none's %d", fifo, fifoMoved, none)
	}
	if fair*5 > none || fairMoved == 0 {
		t.Errorf("fair started %d workers (moved %d): want far fewer than none's %d", fair, fairMoved, none)
	}
}
