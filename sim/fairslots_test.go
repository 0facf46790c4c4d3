package sim

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/scheduler"
)

// Under fair-slots-K a reduce never takes a map slot, nor a map a reduce
// slot. Node a (K = 1) runs one map: its map slot is full, its two reduce
// slots free; node b runs two reduces: its reduce slots are full, its map
// slot free. A queued reduce may go only to a, a queued map only to b;
// with a map and a reduce running on both, nothing starts.
func TestFairSlotsKeepsTypesToTheirSlots(t *testing.T) {
	mapOn := scheduler.RASAttempt{DAG: "x", Kind: scheduler.RASProducer}
	redOn := scheduler.RASAttempt{DAG: "x", Kind: scheduler.RASConsumer}
	nodes := []scheduler.OrderNode{
		{ID: "a", FitsMB: 1000, Running: []scheduler.RASAttempt{mapOn}},
		{ID: "b", FitsMB: 1000, Running: []scheduler.RASAttempt{redOn, redOn}},
	}
	order := fairSlots{maps: 1, reduces: 2}
	for _, c := range []struct {
		kind scheduler.RASKind
		want []bool
	}{
		{scheduler.RASConsumer, []bool{true, false}},
		{scheduler.RASProducer, []bool{false, true}},
	} {
		s := &scheduler.OrderSnapshot{Nodes: nodes, Heads: []scheduler.QueueHead{{DAG: "y", MemoryMB: 100, Kind: c.kind}}}
		p, ok := order.Next(s)
		if !ok || len(p.Fits) != 2 || p.Fits[0] != c.want[0] || p.Fits[1] != c.want[1] {
			t.Errorf("kind %v: pick %+v ok=%v, want fits %v", c.kind, p, ok, c.want)
		}
	}
	full := []scheduler.OrderNode{{ID: "a", FitsMB: 1000, Running: []scheduler.RASAttempt{mapOn, redOn, redOn}}}
	s := &scheduler.OrderSnapshot{Nodes: full, Heads: []scheduler.QueueHead{
		{DAG: "y", MemoryMB: 100, Kind: scheduler.RASProducer}, {DAG: "z", MemoryMB: 100, Kind: scheduler.RASConsumer}}}
	if p, ok := order.Next(s); ok {
		t.Errorf("every slot full: picked %+v, want none", p)
	}
}

// Fair shares per task type: job y runs two maps and no reduce, job z one
// reduce and no map. A free map slot goes to z's map (fewer running maps:
// 0 < 2) although z runs more tasks in all; a free reduce slot to y's
// reduce (0 < 1).
func TestFairSlotsSharesPerType(t *testing.T) {
	nodes := []scheduler.OrderNode{{ID: "a", FitsMB: 1000}}
	y := scheduler.RASDemand{RunningProducers: 2, QueuedProducers: 5, QueuedConsumers: 1}
	z := scheduler.RASDemand{RunningConsumers: 1, QueuedProducers: 5, RunningProducers: 0}
	for _, c := range []struct {
		kind scheduler.RASKind
		want string
	}{{scheduler.RASProducer, "z"}, {scheduler.RASConsumer, "y"}} {
		s := &scheduler.OrderSnapshot{Nodes: nodes, Heads: []scheduler.QueueHead{
			{DAG: "y", Running: 2, MemoryMB: 100, Kind: c.kind, Demand: y},
			{DAG: "z", Running: 1, MemoryMB: 100, Kind: c.kind, Demand: z}}}
		p, ok := fairSlots{maps: 4, reduces: 2}.Next(s)
		if !ok || s.Heads[p.Head].DAG != c.want {
			t.Errorf("kind %v: picked %+v, want %s", c.kind, p, c.want)
		}
	}
}

// One node under fair-slots-1, a job of two maps (10 s, 20 s) and one
// 30 s reduce, slow start 0.05 (one map). The reduce starts in a reduce
// slot when the first map ends, at 10 s, and the second map still gets
// the one map slot: 10..30, then the reduce's 30 s: 60 s, plus the 2 s
// the worker takes to register after its node is up, 62 s. Were
// the reduce to hold the map slot, the second map could not run while
// the reduce waited for it.
func TestFairSlotsReduceLeavesTheMapSlot(t *testing.T) {
	j := Job{ID: "mr", Spec: &dag.Spec{Name: "mr",
		Group: dag.GroupSpec{Name: "g", WorkerMemoryMB: 2048, WorkerVCores: 1},
		Vertices: []dag.VertexSpec{
			{Name: "map", Command: dag.Command{"sim"}, Parallelism: 2, MemoryMB: 200, Profile: &dag.Profile{CPU: 0.1, Memory: 0.1, IO: 0.1},
				SimDurations: []dag.Duration{dag.Duration(10 * time.Second), dag.Duration(20 * time.Second)}},
			{Name: "reduce", Command: dag.Command{"sim"}, Parallelism: 1, MemoryMB: 500, Profile: &dag.Profile{CPU: 0.1, Memory: 0.25},
				SimDurations: []dag.Duration{dag.Duration(30 * time.Second)}},
		},
		Edges: []dag.EdgeSpec{{From: "map", To: "reduce", Type: dag.ScatterGather}},
	}}
	cfg := DefaultConfig()
	cfg.Cloud.Types[0].MemoryMB, cfg.Cloud.Types[0].VCores = 2048, 2
	p, err := ParsePolicy("fair-slots-1")
	if err != nil {
		t.Fatal(err)
	}
	p.Static = 1
	rec, err := Run([]Job{j}, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Run().Jobs[0]
	if !r.Completed || r.JCT() != 62*time.Second {
		t.Fatalf("the job: completed %v in %s, want 62s", r.Completed, r.JCT())
	}
}
