package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// The allocator's view off a DAG's slow nodes, by hand: the slow nodes
// show no room when a node off them fits the attempt, else nothing is
// hidden (a slow node is better than a queued attempt).
func TestOffSlowNodes(t *testing.T) {
	d := &dagRun{}
	d.markSlow(&nodeRun{id: "slow"})
	view := func(fast, slow int64) []packing.Node {
		return []packing.Node{{ID: "slow", FitsMB: slow}, {ID: "fast", FitsMB: fast}}
	}
	for _, c := range []struct {
		what       string
		fast, slow int64
		mem        int64
		want       string // FitsMB of slow, fast
	}{
		{"room off the slow node: it is hidden", 512, 1024, 256, "-1 512"},
		{"room off it too small for the attempt: nothing hidden", 128, 1024, 256, "1024 128"},
		{"the slow node full anyway: nothing to hide", 512, -1, 256, "-1 512"},
	} {
		in := view(c.fast, c.slow)
		out := offSlowNodes(in, d, c.mem)
		if got := fmt.Sprint(out[0].FitsMB, out[1].FitsMB); got != c.want {
			t.Errorf("%s: FitsMB %s, want %s", c.what, got, c.want)
		}
		if in[0].FitsMB != c.slow {
			t.Errorf("%s: the caller's view was changed", c.what)
		}
	}
	if out := offSlowNodes(view(512, 1024), &dagRun{}, 256); out[0].FitsMB != 1024 {
		t.Errorf("a DAG with no slow node: FitsMB %d, want 1024", out[0].FitsMB)
	}
}

// The next stage avoids a node where the DAG straggled. Three maps, one
// per 256 MB worker on n1, n2, n3; the one on n1 straggles (rate 0.1/20
// = 0.005/s against the median 0.04/s), so n1 is slow for the DAG. Its
// backup runs on a fast node and wins; the original is killed. The two
// reduces then have three free workers, one per node, all empty: the
// uniform allocator's tie goes to the lowest index, n1, but n1 is slow
// and n2 and n3 have room, so they go there.
func TestNextStageAvoidsSlowNode(t *testing.T) {
	f := newFake(t, specOn())
	f.submit(`
name: mr
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: map, command: "true", parallelism: 3, memoryMB: 256}
  - {name: red, command: "true", parallelism: 2, memoryMB: 256}
edges: [{from: map, to: red, type: scatter-gather}]
`)
	for i := 1; i <= 3; i++ {
		f.addWorker(fmt.Sprintf("w%d", i), "g", fmt.Sprintf("n%d", i), 256)
	}
	strag := -1
	for i, ids := range f.byTask("map") {
		if f.nodeOf(ids[0]) == "n1" {
			strag = i
		}
	}
	f.tick(20 * time.Second)
	f.report("map", 0.8, map[int]float64{strag: 0.1})
	f.tick(time.Second)
	for i, ids := range f.byTask("map") {
		if i != strag {
			delete(f.running, ids[0])
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: ids[0], Result: AttemptSucceeded})
		}
	}
	f.drain()
	f.tick(time.Second)
	ids := f.byTask("map")[strag]
	if len(ids) != 2 {
		t.Fatalf("map task %d runs %v, want its attempt and a backup", strag, ids)
	}
	delete(f.running, ids[1])
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: ids[1], Result: AttemptSucceeded})
	f.drain()
	f.tick(time.Second)
	reds := f.byTask("red")
	if len(reds) != 2 {
		t.Fatalf("reduces running %v, want both", reds)
	}
	for i, ids := range reds {
		if n := f.nodeOf(ids[0]); n == "n1" {
			t.Errorf("reduce %d on n1, where the DAG's map straggled; n2 and n3 had room", i)
		}
	}
}
