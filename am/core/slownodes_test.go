package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// The allocator's view off a DAG's slow nodes, by hand: the slow nodes
// show no room when a node off them fits the attempt or while the attempt
// still waits for one, else nothing is hidden (a slow node is better than
// a long queue).
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
		wait       bool
		want       string // FitsMB of slow, fast
	}{
		{"room off the slow node: it is hidden", 512, 1024, 256, false, "-1 512"},
		{"room off it too small for the attempt, waited long enough: nothing hidden", 128, 1024, 256, false, "1024 128"},
		{"room off it too small, still waiting for room there: hidden", 128, 1024, 256, true, "-1 128"},
		{"the slow node full anyway: nothing to hide", 512, -1, 256, false, "-1 512"},
	} {
		in := view(c.fast, c.slow)
		out := offSlowNodes(in, d, c.mem, c.wait)
		if got := fmt.Sprint(out[0].FitsMB, out[1].FitsMB); got != c.want {
			t.Errorf("%s: FitsMB %s, want %s", c.what, got, c.want)
		}
		if in[0].FitsMB != c.slow {
			t.Errorf("%s: the caller's view was changed", c.what)
		}
	}
	if out := offSlowNodes(view(512, 1024), &dagRun{}, 256, true); out[0].FitsMB != 1024 {
		t.Errorf("a DAG with no slow node: FitsMB %d, want 1024", out[0].FitsMB)
	}
}

// mapsDone runs a DAG of three maps, one per 256 MB worker on n1, n2, n3,
// and reds reduces; the map on n1 straggles (rate 0.1/20 = 0.005/s
// against the median 0.04/s), so n1 is slow for the DAG. Its backup runs
// on a fast node once the fast maps are done, and wins; the original is
// killed. Then every worker is free, and the reduces are placed.
func mapsDone(t *testing.T, o CoreOptions, reds int) *fakeWorld {
	f := newFake(t, o)
	f.submit(fmt.Sprintf(`
name: mr
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: map, command: "true", parallelism: 3, memoryMB: 256}
  - {name: red, command: "true", parallelism: %d, memoryMB: 256}
edges: [{from: map, to: red, type: scatter-gather}]
`, reds))
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
	f.succeedAllBut("map", strag)
	f.drain()
	f.tick(time.Second)
	ids := f.byTask("map")[strag]
	if len(ids) != 2 {
		t.Fatalf("map task %d runs %v, want its attempt and a backup", strag, ids)
	}
	delete(f.running, ids[1])
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: ids[1], Result: AttemptSucceeded})
	f.drain()
	return f
}

// redNodes lists the nodes the running reduces are on, by task.
func (f *fakeWorld) redNodes() map[int]string {
	out := map[int]string{}
	for i, ids := range f.byTask("red") {
		out[i] = f.nodeOf(ids[0])
	}
	return out
}

// The next stage avoids a node where the DAG straggled: two reduces,
// three free workers, one per node, all empty. The uniform allocator's
// tie goes to the lowest index, n1, but n1 is slow and n2 and n3 have
// room, so they go there.
func TestNextStageAvoidsSlowNode(t *testing.T) {
	f := mapsDone(t, specOn(), 2)
	f.tick(time.Second)
	reds := f.redNodes()
	if len(reds) != 2 {
		t.Fatalf("reduces running on %v, want both", reds)
	}
	for i, n := range reds {
		if n == "n1" {
			t.Errorf("reduce %d on n1, where the DAG's map straggled; n2 and n3 had room", i)
		}
	}
}

// With room only on the slow node, an attempt waits for room off it as
// long as SlowNodeWait (delay scheduling), then takes the slow node:
// three reduces, two go to n2 and n3 at once, the third is placed on n1
// only once it has waited 2 s.
func TestWaitForRoomOffSlowNode(t *testing.T) {
	o := specOn()
	o.Speculation.SlowNodeWait = 2 * time.Second
	f := mapsDone(t, o, 3)
	if reds := f.redNodes(); len(reds) != 2 {
		t.Fatalf("reduces running on %v at once, want two (n2, n3), the third waiting", reds)
	}
	f.tick(time.Second)
	if reds := f.redNodes(); len(reds) != 2 {
		t.Fatalf("reduces running on %v after 1 s, want still two", reds)
	}
	f.tick(time.Second)
	reds := f.redNodes()
	on1 := 0
	for _, n := range reds {
		if n == "n1" {
			on1++
		}
	}
	if len(reds) != 3 || on1 != 1 {
		t.Fatalf("reduces running on %v after 2 s, want three, one on n1", reds)
	}
}

// A backup that asks the world for room keeps new workers off the DAG's
// slow nodes (WantWorkers.Avoid): a worker there would be of no use to it.
// Once the backup runs, the list is empty again.
func TestBackupAskAvoidsSlowNodes(t *testing.T) {
	f, _ := startWide(t, specOn(), 4, 0, "")
	strag := f.byTask("v")[2][0]
	slow := f.nodeOf(strag)
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	if f.wanted["g"] != 5 || fmt.Sprint(f.avoid) != fmt.Sprint([]string{slow}) {
		t.Fatalf("the group wants %d workers avoiding %v, want 5 avoiding [%s]", f.wanted["g"], f.avoid, slow)
	}
	// The slow node is avoided, not draining: the world goes on counting
	// its workers, which the core counts live.
	if len(f.drains) != 0 {
		t.Errorf("draining %v, want none (%s is only avoided)", f.drains, slow)
	}
	f.addWorker("new", "g", "c1", 256)
	f.tick(time.Second)
	if len(f.avoid) != 0 {
		t.Errorf("with the backup running the world still avoids %v, want nothing", f.avoid)
	}
}
