package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestTaskOrderRegistry(t *testing.T) {
	if got := TaskOrderNames(); !slices.Equal(got, []string{"fair", "fifo", "ras"}) {
		t.Errorf("TaskOrderNames = %v", got)
	}
	for _, name := range TaskOrderNames() {
		o, err := NewTaskOrder(name)
		if err != nil || o.Name() != name {
			t.Errorf("NewTaskOrder(%q) = %v, %v", name, o, err)
		}
		if o.ResourceAware() != (name == "ras") {
			t.Errorf("%s: ResourceAware = %v", name, o.ResourceAware())
		}
	}
	// A wrong name is refused with the key and what it could have been,
	// not silently replaced by a default.
	o, err := NewTaskOrder("FIFO")
	var ue *UnknownTaskOrderError
	if o != nil || !errors.As(err, &ue) || ue.Name != "FIFO" {
		t.Fatalf("NewTaskOrder(FIFO) = %v, %v; want *UnknownTaskOrderError", o, err)
	}
	if want := `ebb.scheduler.scheme = "FIFO": want one of fair, fifo, ras`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestFIFOAndFair(t *testing.T) {
	// Heads in fifo order; Running is each DAG's running attempts.
	heads := []QueueHead{{DAG: "A", Running: 3}, {DAG: "B", Running: 1}, {DAG: "C", Running: 1}, {DAG: "D", Running: 2}}
	tests := []struct {
		order string
		heads []QueueHead
		want  string // DAG, or "" for none
	}{
		{"fifo", heads, "A"},     // the first, however many it runs
		{"fair", heads, "B"},     // fewest running; B before C, its equal, by fifo order
		{"fifo", nil, ""},        // nothing queued
		{"fair", nil, ""},        //
		{"fair", heads[:1], "A"}, // alone, it gets the room
	}
	for _, tt := range tests {
		o, err := NewTaskOrder(tt.order)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := o.Next(&OrderSnapshot{Heads: tt.heads})
		got := ""
		if ok {
			got = tt.heads[p.Head].DAG
		}
		if got != tt.want || p.Fits != nil || p.Preferred != nil {
			t.Errorf("%s over %d heads: %q (fits %v, preferred %v), want %q and no node limits", tt.order, len(tt.heads), got, p.Fits, p.Preferred, tt.want)
		}
	}
}

// rasTestPlan is a plan by hand: on n0, A should hold 3 producers, B 1
// producer and 1 consumer, C 2 producers; n1 has no slots. s_req: A 4, B 2, C 1. The
// utilities the plan computed (A -0.5, B -0.2, C 0.3) are a cycle old: ras
// computes them again from what each DAG runs now.
func rasTestPlan() RASPlan {
	return RASPlan{
		DAGs: []RASDAGPlan{
			{ID: "A", Order: 0, SReq: 4, Utility: -0.5},
			{ID: "B", Order: 1, SReq: 2, Utility: -0.2},
			{ID: "C", Order: 2, SReq: 1, Utility: 0.3},
		},
		Nodes: []RASNodePlan{{ID: "n0", Slots: []RASSlot{
			{DAG: "A", Kind: RASProducer, Planned: 3},
			{DAG: "B", Kind: RASConsumer, Planned: 1},
			{DAG: "B", Kind: RASProducer, Planned: 1},
			{DAG: "C", Kind: RASProducer, Planned: 2},
		}}},
		MaxTasksPerNode: 4,
	}
}

// The paper's task scheduler: a node's room goes, among the DAGs with a
// planned slot free there, to the lowest utility now whose task fits.
func TestRASNext(t *testing.T) {
	p25 := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	big := Profile{CPU: 0.6, Memory: 0.1, IO: 0.1}
	a := RASAttempt{"A", RASProducer, p25}
	bc := RASAttempt{"B", RASConsumer, p25}
	// prod: running and queued producers.
	prod := func(run, queued int) RASDemand { return RASDemand{RunningProducers: run, QueuedProducers: queued} }
	head := func(dag string, k RASKind, p Profile, d RASDemand) QueueHead {
		return QueueHead{DAG: dag, Kind: k, Profile: p, MemoryMB: 100, Demand: d}
	}
	n0 := func(as ...RASAttempt) []OrderNode { return []OrderNode{{ID: "n0", FitsMB: 1000, Running: as}} }
	tests := []struct {
		name  string
		nodes []OrderNode
		heads []QueueHead
		want  string // "dag/kind", or "" for none
	}{
		// A: 2 running, s_req 4: log 2 / log 4 - 1 = -0.5; B: 1 running,
		// s_req 2: log 1 / log 2 - 1 = -1.
		{"lowest utility now", n0(a, a),
			[]QueueHead{head("A", RASProducer, p25, prod(2, 6)), head("B", RASProducer, p25, prod(1, 3))}, "B/producer"},
		// A at its s_req 4 of 8 left: (4-4)/(8-4) = 0; B none of s_req 2:
		// the floor. The plan's own utilities (A below B) are a cycle old.
		{"utility now, not the plan's", n0(),
			[]QueueHead{head("A", RASProducer, p25, prod(4, 4)), head("B", RASProducer, p25, prod(0, 5))}, "B/producer"},
		// A would be lower (floor) but its task does not fit beside CPU 0.5.
		{"only what fits", n0(a, bc),
			[]QueueHead{head("A", RASProducer, big, prod(0, 5)), head("C", RASProducer, p25, prod(3, 1))}, "C/producer"},
		{"nothing fits", n0(a, a, bc), // CPU 0.75 + 0.6 > 1
			[]QueueHead{head("A", RASProducer, big, prod(2, 5))}, ""},
		{"task cap", n0(a, a, a, bc), // 4 = MaxTasksPerNode
			[]QueueHead{head("C", RASProducer, Profile{CPU: 0.01}, prod(0, 1))}, ""},
		{"no memory", []OrderNode{{ID: "n0", FitsMB: 99}}, // the head asks 100 MB
			[]QueueHead{head("C", RASProducer, p25, prod(0, 1))}, ""},
		{"no heads", n0(), nil, ""},
		// N is not in the plan: it waits for the next plan, although its
		// utility (s_req = its 8 unfinished producers: log 1 / log 8 - 1 =
		// -1) is the lowest; A's 3 planned slots on n0 are all running.
		{"a DAG newer than the plan waits for the next plan", n0(a, a, a),
			[]QueueHead{head("A", RASProducer, p25, prod(3, 5)), head("N", RASProducer, p25, prod(1, 7))}, ""},
		// Both at the floor (nothing running below s_req): fifo order.
		{"ties: fifo order", n0(),
			[]QueueHead{head("C", RASProducer, p25, prod(0, 3)), head("A", RASProducer, p25, prod(0, 3))}, "C/producer"},
		// B's producers are done (part 1) and its one consumer is not
		// placed (part -1): 0. A with 5 of s_req 4, 9 left: (5-4)/(9-4) = 0.2.
		{"an unplaced consumer lowers its DAG", n0(),
			[]QueueHead{head("A", RASProducer, p25, prod(5, 4)), head("B", RASConsumer, p25, RASDemand{QueuedConsumers: 1})}, "B/consumer"},
		{"a node the plan does not know takes nothing until the next plan", []OrderNode{{ID: "new", FitsMB: 1000}},
			[]QueueHead{head("C", RASProducer, p25, prod(1, 0)), head("A", RASProducer, p25, prod(1, 3))}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := ras{}.Next(&OrderSnapshot{Heads: tt.heads, Nodes: tt.nodes, Plan: rasTestPlan()})
			got := ""
			if ok {
				got = tt.heads[p.Head].DAG + "/" + tt.heads[p.Head].Kind.String()
			}
			if got != tt.want {
				t.Errorf("Next = %q, want %q", got, tt.want)
			}
		})
	}
}

// Consumers go where the plan put them (stage 1 of Plan spread them), and
// nowhere else.
func TestRASConsumerNodes(t *testing.T) {
	p25 := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	nodes := []OrderNode{
		{ID: "n0", FitsMB: 1000, Running: []RASAttempt{{"X", RASConsumer, p25}}}, // one consumer of X
		{ID: "n1", FitsMB: 1000, Running: []RASAttempt{{"D", RASConsumer, p25}}}, // one of D itself
		{ID: "n2", FitsMB: 1000}, // none
		{ID: "n3", FitsMB: 1000}, // none
	}
	for _, c := range []struct {
		dag, want string
	}{
		{"D", "none"},                     // the plan knows no D: it waits for the next plan
		{"B", "[true false false false]"}, // the plan wants B's consumer on n0 (rasTestPlan)
	} {
		h := QueueHead{DAG: c.dag, Kind: RASConsumer, Profile: p25, MemoryMB: 100, Demand: RASDemand{QueuedConsumers: 1}}
		plan := rasTestPlan()
		plan.Nodes[0].ID = "n0"
		p, ok := ras{}.Next(&OrderSnapshot{Heads: []QueueHead{h}, Nodes: nodes, Plan: plan})
		got := "none"
		if ok {
			got = fmt.Sprint(p.Fits)
		}
		if got != c.want {
			t.Errorf("%s's consumer may go to %s, want %s", c.dag, got, c.want)
		}
	}
}

// ras says where the attempt may go: the plan's nodes for it with a slot
// free and room; the allocator chooses among those.
func TestRASPickNodes(t *testing.T) {
	p25 := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	a := RASAttempt{"A", RASProducer, p25}
	full := RASAttempt{"C", RASProducer, Profile{CPU: 1}}
	nodes := []OrderNode{
		{ID: "n0", FitsMB: 1000, Running: []RASAttempt{a}},    // A 1 of 3 planned: fits, wanted
		{ID: "n1", FitsMB: 1000},                              // empty, but no slots for A
		{ID: "n2", FitsMB: 1000, Running: []RASAttempt{full}}, // CPU 1.0: no room
		{ID: "n3", FitsMB: 50},                                // too little memory
	}
	p, ok := ras{}.Next(&OrderSnapshot{Heads: []QueueHead{{DAG: "A", Kind: RASProducer, Profile: p25, MemoryMB: 100, Demand: RASDemand{RunningProducers: 1, QueuedProducers: 3}}}, Nodes: nodes, Plan: rasTestPlan()})
	if !ok || p.Head != 0 {
		t.Fatalf("Next = %+v, %v", p, ok)
	}
	if got := fmt.Sprint(p.Fits); got != "[true false false false]" {
		t.Errorf("Fits = %s, want n0 only (the plan's node for A)", got)
	}
}

// Started one by one as ras says, on the nodes it allows, a node never
// passes 1.0: the AM's loop of calls fills it exactly to what fits.
func TestRASFillsWithoutOverload(t *testing.T) {
	plan := RASPlan{DAGs: []RASDAGPlan{{ID: "A"}, {ID: "B", Order: 1}},
		Nodes: []RASNodePlan{{ID: "n0", Slots: []RASSlot{{DAG: "A", Kind: RASProducer, Planned: 5}, {DAG: "B", Kind: RASProducer, Planned: 5}}}}}
	heads := []QueueHead{
		{DAG: "A", Kind: RASProducer, Profile: Profile{CPU: 0.3, Memory: 0.1, IO: 0.1}, MemoryMB: 1},
		{DAG: "B", Kind: RASProducer, Profile: Profile{CPU: 0.1, Memory: 0.1, IO: 0.4}, MemoryMB: 1},
	}
	s := &OrderSnapshot{Heads: heads, Nodes: []OrderNode{{ID: "n0", FitsMB: 1000}}, Plan: plan}
	for {
		p, ok := ras{}.Next(s)
		if !ok {
			break
		}
		if !p.Fits[0] {
			t.Fatalf("picked %s with no node allowed", heads[p.Head].DAG)
		}
		h := heads[p.Head]
		s.Nodes[0].Running = append(s.Nodes[0].Running, RASAttempt{h.DAG, h.Kind, h.Profile})
	}
	// Nothing pending in the demand: both at utility 1, A first by fifo
	// order each time: A until CPU 0.9 (3 × 0.3),
	// then B (CPU 1.0, I/O 0.3 + 0.4 = 0.7); then nothing fits.
	var load Profile
	count := map[string]int{}
	for _, a := range s.Nodes[0].Running {
		load = load.add(a.Profile)
		count[a.DAG]++
	}
	if count["A"] != 3 || count["B"] != 1 {
		t.Errorf("started %v, want A 3 B 1", count)
	}
	if load.CPU > 1+1e-9 || load.IO > 1+1e-9 || load.Memory > 1+1e-9 {
		t.Errorf("load %+v past capacity", load)
	}
}

// The task scheduler follows the plan's per-node slots: the plan pairs A's
// CPU-bound producer with n0 and B's I/O-bound one with n1. A has the lower
// utility (nothing running of s_req 2: the floor; B one of s_req 1, 5
// left: (1-1)/(5-1) = 0), so
// it goes first, but only to n0; then B, only to n1; then nothing, though
// both nodes have room for either: the slots the plan gave are taken.
func TestRASFollowsThePlansSlots(t *testing.T) {
	cpu := Profile{CPU: 0.5, Memory: 0.1, IO: 0.1}
	io := Profile{CPU: 0.1, Memory: 0.1, IO: 0.5}
	plan := RASPlan{
		DAGs: []RASDAGPlan{{ID: "A", SReq: 2}, {ID: "B", Order: 1, SReq: 1}},
		Nodes: []RASNodePlan{
			{ID: "n0", Slots: []RASSlot{{DAG: "A", Kind: RASProducer, Planned: 1}}},
			{ID: "n1", Slots: []RASSlot{{DAG: "B", Kind: RASProducer, Planned: 2, Running: 1}}},
		},
	}
	s := &OrderSnapshot{Plan: plan,
		Nodes: []OrderNode{{ID: "n0", FitsMB: 1000}, {ID: "n1", FitsMB: 1000, Running: []RASAttempt{{"B", RASProducer, io}}}},
		Heads: []QueueHead{
			{DAG: "A", Kind: RASProducer, Profile: cpu, MemoryMB: 100, Demand: RASDemand{QueuedProducers: 4}},
			{DAG: "B", Kind: RASProducer, Profile: io, MemoryMB: 100, Demand: RASDemand{RunningProducers: 1, QueuedProducers: 4}},
		}}
	for _, want := range []string{"A [true false]", "B [false true]", "none"} {
		p, ok := ras{}.Next(s)
		got := "none"
		if ok {
			h := s.Heads[p.Head]
			got = h.DAG + " " + fmt.Sprint(p.Fits)
			for i, f := range p.Fits {
				if f {
					s.Nodes[i].Running = append(s.Nodes[i].Running, RASAttempt{h.DAG, h.Kind, h.Profile})
					break
				}
			}
			s.Heads[p.Head].Demand.RunningProducers++
		}
		if got != want {
			t.Fatalf("Next = %s, want %s", got, want)
		}
	}
}

// Attrition: a DAG that runs more attempts on a node than the plan now
// gives it there gets none of the room they leave; the DAG the plan put
// there does, though its utility now is the higher. n0's plan: E 1 slot,
// L 4 (tasks of CPU 0.2). E runs 3 (one of them fills its slot), L 1:
// CPU 0.8, room for one. E: 3 running of s_req 8: log 3/log 8 - 1 = -0.47;
// L: 1 of s_req 1, 11 unfinished: (1-1)/(11-1) = 0. E is the lower and its
// task fits, but it has no planned slot free: L takes the room.
func TestRASFreedRoomGoesToThePlannedDAG(t *testing.T) {
	p20 := Profile{CPU: 0.2, Memory: 0.1, IO: 0.1}
	e, l := RASAttempt{"E", RASProducer, p20}, RASAttempt{"L", RASProducer, p20}
	plan := RASPlan{
		DAGs: []RASDAGPlan{{ID: "E", SReq: 8}, {ID: "L", Order: 1, SReq: 1}},
		Nodes: []RASNodePlan{{ID: "n0", Slots: []RASSlot{
			{DAG: "E", Kind: RASProducer, Planned: 1, Running: 3},
			{DAG: "L", Kind: RASProducer, Planned: 4, Running: 1},
		}}},
	}
	heads := []QueueHead{
		{DAG: "E", Kind: RASProducer, Profile: p20, MemoryMB: 100, Demand: RASDemand{RunningProducers: 3, QueuedProducers: 20}},
		{DAG: "L", Kind: RASProducer, Profile: p20, MemoryMB: 100, Demand: RASDemand{RunningProducers: 1, QueuedProducers: 10}},
	}
	nodes := []OrderNode{{ID: "n0", FitsMB: 1000, Running: []RASAttempt{e, e, e, l}}}
	p, ok := ras{}.Next(&OrderSnapshot{Plan: plan, Nodes: nodes, Heads: heads})
	got := "none"
	if ok {
		got = heads[p.Head].DAG + " " + fmt.Sprint(p.Fits)
	}
	if got != "L [true]" {
		t.Errorf("Next = %s, want L [true] (E runs more than its planned slot there)", got)
	}
}
