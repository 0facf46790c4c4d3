package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
// producer and 1 consumer; n1 has no slots. Utilities: A -0.5, B -0.2,
// C 0.3.
func rasTestPlan() RASPlan {
	return RASPlan{
		DAGs: []RASDAGPlan{
			{ID: "A", Order: 0, Utility: -0.5},
			{ID: "B", Order: 1, Utility: -0.2},
			{ID: "C", Order: 2, Utility: 0.3},
		},
		Nodes: []RASNodePlan{{ID: "n0", Slots: []RASSlot{
			{DAG: "A", Kind: RASProducer, Planned: 3},
			{DAG: "B", Kind: RASConsumer, Planned: 1},
			{DAG: "B", Kind: RASProducer, Planned: 1},
		}}},
		MaxTasksPerNode: 4,
	}
}

func TestRASNext(t *testing.T) {
	p25 := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	big := Profile{CPU: 0.6, Memory: 0.1, IO: 0.1}
	a := RASAttempt{"A", RASProducer, p25}
	bc := RASAttempt{"B", RASConsumer, p25}
	head := func(dag string, k RASKind, p Profile) QueueHead {
		return QueueHead{DAG: dag, Kind: k, Profile: p, MemoryMB: 100}
	}
	n0 := func(as ...RASAttempt) []OrderNode { return []OrderNode{{ID: "n0", FitsMB: 1000, Running: as}} }
	tests := []struct {
		name  string
		nodes []OrderNode
		heads []QueueHead
		want  string // "dag/kind", or "" for none
	}{
		{"furthest below plan first", n0(a, bc), // A 1 of 3 (2 short), B producer 0 of 1 (1 short)
			[]QueueHead{head("B", RASProducer, p25), head("A", RASProducer, p25)}, "A/producer"},
		{"below plan beats lower utility", n0(a, a, a), // A at plan, B consumer 1 short
			[]QueueHead{head("A", RASProducer, p25), head("B", RASConsumer, p25)}, "B/consumer"},
		{"equal shortfall: lowest utility", n0(a, a), // A 1 short (-0.5), B producer 1 short (-0.2)
			[]QueueHead{head("B", RASProducer, p25), head("A", RASProducer, p25)}, "A/producer"},
		{"only what fits", n0(a, bc), // load CPU 0.5: A's big task (0.6) does not fit
			[]QueueHead{head("A", RASProducer, big), head("C", RASProducer, p25)}, "C/producer"},
		{"nothing fits", n0(a, a, bc), // CPU 0.75 + 0.6 > 1
			[]QueueHead{head("A", RASProducer, big)}, ""},
		{"task cap", n0(a, a, a, bc), // 4 = MaxTasksPerNode
			[]QueueHead{head("C", RASProducer, Profile{CPU: 0.01})}, ""},
		{"no memory", []OrderNode{{ID: "n0", FitsMB: 99}}, // the head asks 100 MB
			[]QueueHead{head("C", RASProducer, p25)}, ""},
		{"no heads", n0(), nil, ""},
		{"over plan: producers before consumers", n0(a, a, a), // both C's are over plan
			[]QueueHead{head("C", RASConsumer, p25), head("C", RASProducer, p25)}, "C/producer"},
		{"over plan: lowest utility", n0(a, a, a),
			[]QueueHead{head("C", RASProducer, p25), head("A", RASProducer, p25)}, "A/producer"},
		{"DAG newer than the plan counts as the floor", n0(a, a, a),
			[]QueueHead{head("A", RASProducer, p25), head("N", RASProducer, p25)}, "N/producer"},
		{"a node the plan does not know is still used", []OrderNode{{ID: "new", FitsMB: 1000}},
			[]QueueHead{head("C", RASProducer, p25), head("A", RASProducer, p25)}, "A/producer"},
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

// ras says where the attempt may go and where the plan wants it; the
// allocator chooses among those, so it must not get a single node.
func TestRASPickNodes(t *testing.T) {
	p25 := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	a := RASAttempt{"A", RASProducer, p25}
	full := RASAttempt{"C", RASProducer, Profile{CPU: 1}}
	nodes := []OrderNode{
		{ID: "n0", FitsMB: 1000, Running: []RASAttempt{a}},    // A 1 of 3 planned: fits, wanted
		{ID: "n1", FitsMB: 1000},                              // empty, no slots: fits
		{ID: "n2", FitsMB: 1000, Running: []RASAttempt{full}}, // CPU 1.0: no room
		{ID: "n3", FitsMB: 50},                                // too little memory
	}
	p, ok := ras{}.Next(&OrderSnapshot{Heads: []QueueHead{{DAG: "A", Kind: RASProducer, Profile: p25, MemoryMB: 100}}, Nodes: nodes, Plan: rasTestPlan()})
	if !ok || p.Head != 0 {
		t.Fatalf("Next = %+v, %v", p, ok)
	}
	if got := fmt.Sprint(p.Fits); got != "[true true false false]" {
		t.Errorf("Fits = %s, want n0 and n1", got)
	}
	if got := strings.Join(p.Preferred, ","); got != "n0" {
		t.Errorf("Preferred = %q, want n0 (the plan's node for A)", got)
	}
}

// Started one by one as ras says, on the nodes it allows, a node never
// passes 1.0: the AM's loop of calls fills it exactly to what fits.
func TestRASFillsWithoutOverload(t *testing.T) {
	plan := RASPlan{DAGs: []RASDAGPlan{{ID: "A"}, {ID: "B", Order: 1}}}
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
	// Equal utilities, A first by order each time: A until CPU 0.9 (3 × 0.3),
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
