package scheduler

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"
)

var rasNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func emptyNodes(ids ...string) []RASNode {
	ns := make([]RASNode, len(ids))
	for i, id := range ids {
		ns[i] = RASNode{ID: id}
	}
	return ns
}

func producers(id string, order, pending int, p Profile) RASDAG {
	return RASDAG{ID: id, Order: order, Producers: RASProducers{Pending: pending, Profile: p}}
}

func dagPlan(t *testing.T, p RASPlan, id string) RASDAGPlan {
	t.Helper()
	d, ok := p.DAG(id)
	if !ok {
		t.Fatalf("plan has no DAG %q", id)
	}
	return d
}

// slotsOf is the node's planned slots as "dag/kind" -> count.
func slotsOf(t *testing.T, p RASPlan, node string) map[string]int {
	t.Helper()
	n, ok := p.node(node)
	if !ok {
		t.Fatalf("plan has no node %q", node)
	}
	out := map[string]int{}
	for _, s := range n.Slots {
		out[s.DAG+"/"+s.Kind.String()] = s.Planned
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The tasks a node takes follow from the profile, not from a slot count.
func TestPlanSlotsFollowProfiles(t *testing.T) {
	tests := []struct {
		name    string
		profile Profile
		want    int
	}{
		{"cpu-bound", Profile{CPU: 0.3, Memory: 0.1, IO: 0.2}, 3},      // floor(1/0.3) = 3 by CPU
		{"io-bound", Profile{CPU: 0.1, Memory: 0.1, IO: 0.25}, 4},      // 1/0.25 = 4 by I/O
		{"memory-bound", Profile{CPU: 0.05, Memory: 0.15, IO: 0.1}, 6}, // floor(1/0.15) = 6 by memory
		{"tenths add up to one", Profile{CPU: 0.1, Memory: 0.1, IO: 0.1}, 10},
		{"whole node", Profile{CPU: 1, Memory: 0.5, IO: 0.5}, 1},
		{"zero profile hits the cap", Profile{}, 5},                         // MaxTasksPerNode
		{"over 1 is read as 1", Profile{CPU: 1.5, Memory: 0.1, IO: 0.1}, 1}, // clamped, still runs
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Plan(rasNow, RASSnapshot{
				Nodes:           emptyNodes("n0"),
				DAGs:            []RASDAG{producers("A", 0, 20, tt.profile)},
				MaxTasksPerNode: 5 + 5*btoi(tt.want != 5), // 5 for the cap case, else 10
			})
			if got := dagPlan(t, p, "A").NewProducers; got != tt.want {
				t.Errorf("planned %d tasks, want %d", got, tt.want)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Two DAGs that use different resources share a node four ways where a
// static two-slot node would run two tasks.
func TestPlanPacksComplementaryProfiles(t *testing.T) {
	p := Plan(rasNow, RASSnapshot{
		Nodes: emptyNodes("n0"),
		DAGs: []RASDAG{
			producers("cpu", 0, 4, Profile{CPU: 0.4, Memory: 0.1, IO: 0.1}),
			producers("io", 1, 4, Profile{CPU: 0.1, Memory: 0.1, IO: 0.4}),
		},
	})
	// 2 × cpu + 2 × io: CPU 0.8 + 0.2 = 1.0, I/O 0.2 + 0.8 = 1.0, memory 0.4.
	if got := slotsOf(t, p, "n0"); !reflect.DeepEqual(got, map[string]int{"cpu/producer": 2, "io/producer": 2}) {
		t.Errorf("slots = %v, want 2 of each", got)
	}
	// No goal: s_req = s_pend = 4; log2/log4 - 1 = -0.5 each.
	for _, id := range []string{"cpu", "io"} {
		if d := dagPlan(t, p, id); d.SReq != 4 || !near(d.Utility, -0.5) {
			t.Errorf("%s: s_req %g utility %g, want 4 and -0.5", id, d.SReq, d.Utility)
		}
	}
	if n, _ := p.node("n0"); !near(n.Load.CPU, 1) || !near(n.Load.IO, 1) || !near(n.Load.Memory, 0.4) {
		t.Errorf("load = %+v, want cpu 1, memory 0.4, io 1", n.Load)
	}
}

// The rounds give each task to the lowest utility. 4 nodes × 4 tasks of
// 0.25 CPU = 16 slots. A: 20 tasks of 60s due in 300s, s_req = ceil(20×60/300)
// = 4. B: due in 150s, s_req = ceil(20×60/150) = 8. Water-filling both from
// nothing (log k/log s_req - 1 below s_req, (k - s_req)/(20 - s_req) above):
//
//	A1 B1 (-1, -1)  A2 (-0.5)  B2 (-0.667)  B3 (-0.472)  A3 (-0.208)
//	B4 (-0.333)  B5 (-0.226)  B6 (-0.138)  A4 (0)  B7 (-0.064)  B8 (0)
//	A5 (1/16)  B9 (1/12)  A6 (2/16)  B10 (2/12)   = 6 + 10 = 16
//
// so A gets 6 (0.125) and B 10 (0.1667); A7 B9 would leave the lowest at
// 1/12 = 0.083.
func TestPlanRaisesLowestUtility(t *testing.T) {
	dag := func(id string, order int, within time.Duration) RASDAG {
		d := producers(id, order, 20, Profile{CPU: 0.25, Memory: 0.1, IO: 0.1})
		d.Producers.MeanTaskTime = 60 * time.Second
		d.Goal = rasNow.Add(within)
		return d
	}
	p := Plan(rasNow, RASSnapshot{
		Nodes: emptyNodes("n0", "n1", "n2", "n3"),
		DAGs:  []RASDAG{dag("A", 0, 300*time.Second), dag("B", 1, 150*time.Second)},
	})
	a, b := dagPlan(t, p, "A"), dagPlan(t, p, "B")
	if a.SReq != 4 || b.SReq != 8 {
		t.Fatalf("s_req A %g B %g, want 4 and 8", a.SReq, b.SReq)
	}
	if a.Producers != 6 || b.Producers != 10 {
		t.Errorf("producers A %d B %d, want 6 and 10", a.Producers, b.Producers)
	}
	if !near(a.Utility, 2.0/16) || !near(b.Utility, 2.0/12) {
		t.Errorf("utility A %g B %g, want 0.125 and 0.1667", a.Utility, b.Utility)
	}
	if p.Rounds != 16 {
		t.Errorf("rounds = %d, want 16 (one per task)", p.Rounds)
	}
}

// Running attempts count against their DAG's planned slots on their node.
// n0 runs 3 of A's tasks; the plan places all 13 of A's unfinished tasks
// and B's 10 afresh, and each of A's first slots goes where one of A's
// attempts runs unfilled. No goals: s_req = s_pend, A 13, B 10. Utilities
// log k/log s_req - 1:
//
//	A1 -1  A2 -0.730  A3 -0.572  A4 -0.460    B1 -1  B2 -0.699  B3 -0.523  B4 -0.398
//
// Rounds (lowest first, ties to A by order): A1 n0 (A runs there), B1 n1
// (max load 0.25 < 0.5), A2 n0, B2 n1, A3 n0 (all of A's three now fill
// slots), B3 n1 (0.75 < 1.0), A4 (-0.572 < -0.523): both nodes at 1.0
// after, the first wins: n0. B4 n1. A's fifth fits nowhere: 8 slots, A 4
// (1 to start), B 4 (4 to start).
func TestPlanCountsRunningAttempts(t *testing.T) {
	prof := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	p := Plan(rasNow, RASSnapshot{
		Nodes: []RASNode{
			{ID: "n0", Running: []RASAttempt{{"A", RASProducer, prof}, {"A", RASProducer, prof}, {"A", RASProducer, prof}}},
			{ID: "n1"},
		},
		DAGs: []RASDAG{producers("A", 0, 10, prof), producers("B", 1, 10, prof)},
	})
	a, b := dagPlan(t, p, "A"), dagPlan(t, p, "B")
	if a.SReq != 13 || b.SReq != 10 {
		t.Errorf("s_req A %g B %g, want 13 and 10", a.SReq, b.SReq)
	}
	if a.Producers != 4 || a.NewProducers != 1 || b.Producers != 4 || b.NewProducers != 4 {
		t.Errorf("A %d (%d new), B %d (%d new); want A 4 (1 new), B 4 (4 new)", a.Producers, a.NewProducers, b.Producers, b.NewProducers)
	}
	if !near(a.Utility, math.Log(4)/math.Log(13)-1) || !near(b.Utility, math.Log(4)/math.Log(10)-1) {
		t.Errorf("utility A %g B %g, want log4/log13 - 1 and log4/log10 - 1", a.Utility, b.Utility)
	}
	if got := slotsOf(t, p, "n0"); !reflect.DeepEqual(got, map[string]int{"A/producer": 4}) {
		t.Errorf("n0 slots %v, want A 4 (3 running fill 3)", got)
	}
	if got := slotsOf(t, p, "n1"); !reflect.DeepEqual(got, map[string]int{"B/producer": 4}) {
		t.Errorf("n1 slots %v, want B 4", got)
	}
	n0, _ := p.node("n0")
	if n0.Slots[0].Running != 3 {
		t.Errorf("n0 running = %d, want 3", n0.Slots[0].Running)
	}
}

// The lowest DAG's task fits nowhere as loads stand, but does once another
// planned task moves to a node where it also fits.
//
// B runs one attempt on n2 (CPU 0.7). S (tasks of 0.4, two pending) and B
// (tasks of 0.7, one running and one pending) have no goals, so s_req =
// s_pend = 2 each.
// Round 1: both at the floor, S first by order: S1 on n0.
// Round 2: B at the floor: B1 on n2, where B's attempt runs.
// Round 3: tie at -1, S first by order: S2 on n1 (max load 0.4 < 0.8 on n0).
// Round 4: B (-1) needs 0.7: n0 0.4, n1 0.4, n2 0.7 all too full. Moving S's
// slot from n0 to n1 (0.8) frees n0 for B. Then S = 1 and B = 1.
func TestPlanMovesATaskToMakeRoom(t *testing.T) {
	small := Profile{CPU: 0.4, Memory: 0.1, IO: 0.1}
	big := Profile{CPU: 0.7, Memory: 0.1, IO: 0.1}
	p := Plan(rasNow, RASSnapshot{
		Nodes: []RASNode{{ID: "n0"}, {ID: "n1"}, {ID: "n2", Running: []RASAttempt{{"B", RASProducer, big}}}},
		DAGs:  []RASDAG{producers("S", 0, 2, small), producers("B", 1, 1, big)},
	})
	want := map[string]map[string]int{
		"n0": {"B/producer": 1},
		"n1": {"S/producer": 2},
		"n2": {"B/producer": 1},
	}
	for n, w := range want {
		if got := slotsOf(t, p, n); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: slots %v, want %v", n, got, w)
		}
	}
	if s, b := dagPlan(t, p, "S"), dagPlan(t, p, "B"); s.Utility != 1 || b.Utility != 1 {
		t.Errorf("utility S %g B %g, want 1 and 1", s.Utility, b.Utility)
	}
	if p.Rounds != 4 {
		t.Errorf("rounds = %d, want 4", p.Rounds)
	}
}

// The plan is a target, not what runs: on a full node a DAG that arrived
// after the cluster filled gets the slots its goal asks for, and the
// attempts the plan gives no slot run on until they end (attrition). n0
// runs 4 of early's tasks (CPU 0.25 each: the node is full). early: 28
// pending + 4 running = 32 unfinished of 30 s, 10 h left: s_req =
// ceil(32 x 30 s / 36000 s) = 1, so (k-1)/31 with k slots. late: 8 pending,
// no task finished: s_req = 8, log k/log 8 - 1 (-1, -0.667, -0.472 for k =
// 1..3). Round 1: both at the floor, early first by order: early 1 on n0,
// where it runs (0). Rounds 2-4: late below 0 each time: late 1, 2, 3. The
// node is full (4 x 0.25): early 1 of its 4 running, late 3 to start.
// A plan that kept running attempts would have given late nothing.
func TestPlanGivesALateDAGSlotsOnAFullCluster(t *testing.T) {
	prof := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	early := producers("early", 0, 28, prof)
	early.Producers.MeanTaskTime = 30 * time.Second
	early.Goal = rasNow.Add(10 * time.Hour)
	late := producers("late", 1, 8, prof)
	late.Goal = rasNow.Add(2 * time.Minute)
	run := RASAttempt{"early", RASProducer, prof}
	p := Plan(rasNow, RASSnapshot{
		Nodes: []RASNode{{ID: "n0", Running: []RASAttempt{run, run, run, run}}},
		DAGs:  []RASDAG{early, late},
	})
	e, l := dagPlan(t, p, "early"), dagPlan(t, p, "late")
	if e.SReq != 1 || l.SReq != 8 {
		t.Fatalf("s_req early %g late %g, want 1 and 8", e.SReq, l.SReq)
	}
	if e.Producers != 1 || e.NewProducers != 0 || l.Producers != 3 || l.NewProducers != 3 {
		t.Errorf("early %d (%d to start), late %d (%d to start); want early 1 (0), late 3 (3)",
			e.Producers, e.NewProducers, l.Producers, l.NewProducers)
	}
	n0, _ := p.node("n0")
	want := []RASSlot{{DAG: "early", Kind: RASProducer, Planned: 1, Running: 4}, {DAG: "late", Kind: RASProducer, Planned: 3}}
	if !reflect.DeepEqual(n0.Slots, want) {
		t.Errorf("n0 slots %+v, want %+v", n0.Slots, want)
	}
}

// When the lowest cannot be raised, what is left goes to whoever fits.
// One node; A (first) has tasks of 0.6 CPU, B of 0.2; 3 pending each, no
// goals, so s_req = 3 each.
// Round 1: both at the floor, A first: A1 (load 0.6).
// Round 2: B at the floor: B1 (0.8).
// Round 3: both at log1/log3 - 1 = -1, A first by order; 0.8 + 0.6 > 1 and
// no other node to move to: the rounds stop after 2.
// Fill: A still does not fit; B2 does (0.8 + 0.2 = 1.0). Then nothing fits.
func TestPlanFillsAfterRounds(t *testing.T) {
	snap := RASSnapshot{
		Nodes: emptyNodes("n0"),
		DAGs: []RASDAG{
			producers("A", 0, 3, Profile{CPU: 0.6, Memory: 0.1, IO: 0.1}),
			producers("B", 1, 3, Profile{CPU: 0.2, Memory: 0.1, IO: 0.1}),
		},
	}
	p := Plan(rasNow, snap)
	if got := slotsOf(t, p, "n0"); !reflect.DeepEqual(got, map[string]int{"A/producer": 1, "B/producer": 2}) {
		t.Errorf("slots %v, want A1 B2", got)
	}
	if p.Rounds != 2 {
		t.Errorf("rounds = %d, want 2", p.Rounds)
	}
	// With one round A1 is placed by the rounds and B1, B2 by the fill,
	// lowest first: the same capacity is used.
	snap.MaxRounds = 1
	p = Plan(rasNow, snap)
	if p.Rounds != 1 {
		t.Errorf("rounds = %d, want 1", p.Rounds)
	}
	if got := slotsOf(t, p, "n0"); !reflect.DeepEqual(got, map[string]int{"A/producer": 1, "B/producer": 2}) {
		t.Errorf("one round: slots %v, want A1 B2", got)
	}
}

// Consumers go first and spread: no two on a node while a node has none,
// then no two of one DAG.
func TestPlanSpreadsConsumers(t *testing.T) {
	cons := Profile{CPU: 0.1, Memory: 0.2, IO: 0.2}
	dag := func(id string, order, n int) RASDAG {
		return RASDAG{ID: id, Order: order, Consumers: RASConsumers{Pending: n, Shuffle: cons, Reduce: cons}}
	}
	p := Plan(rasNow, RASSnapshot{
		Nodes: emptyNodes("n0", "n1", "n2"),
		DAGs:  []RASDAG{dag("A", 0, 2), dag("B", 1, 2)},
	})
	// Turns in submission order: A→n0, B→n1, A→n2 (the last free node),
	// B→ n0 or n2 (one consumer each, none of B's): the first, n0.
	want := map[string]map[string]int{
		"n0": {"A/consumer": 1, "B/consumer": 1},
		"n1": {"B/consumer": 1},
		"n2": {"A/consumer": 1},
	}
	for n, w := range want {
		if got := slotsOf(t, p, n); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: slots %v, want %v", n, got, w)
		}
	}
	// All placed: the consumer term is 0; no producers: 1.
	if d := dagPlan(t, p, "A"); d.Consumers != 2 || d.Utility != 1 {
		t.Errorf("A: consumers %d utility %g, want 2 and 1", d.Consumers, d.Utility)
	}
}

// A DAG with a consumer already running on a node places its next one
// elsewhere even if that node is emptier otherwise.
func TestPlanConsumersAvoidTheirOwnDAG(t *testing.T) {
	cons := Profile{CPU: 0.1, Memory: 0.1, IO: 0.1}
	p := Plan(rasNow, RASSnapshot{
		Nodes: []RASNode{
			{ID: "n0", Running: []RASAttempt{{"A", RASConsumer, cons}}},
			{ID: "n1", Running: []RASAttempt{{"B", RASConsumer, cons}, {"X", RASProducer, Profile{CPU: 0.5}}}},
		},
		DAGs: []RASDAG{{ID: "A", Consumers: RASConsumers{Pending: 1, Shuffle: cons}}},
	})
	// Both nodes hold a consumer; n0 holds one of A's, so A's goes to n1
	// although n1 is more loaded.
	if got := slotsOf(t, p, "n1"); got["A/consumer"] != 1 {
		t.Errorf("n1 slots %v, want A's consumer there", got)
	}
}

// Consumers use the shuffle profile while producers run and the reduce
// profile after.
func TestPlanConsumerPhase(t *testing.T) {
	shuffle := Profile{CPU: 0.1, Memory: 0.2, IO: 0.2}
	reduce := Profile{CPU: 0.5, Memory: 0.2, IO: 0.2}
	dag := RASDAG{ID: "A", Consumers: RASConsumers{Pending: 3, Shuffle: shuffle, Reduce: reduce}}
	// Producers done: reduce profile, two fit by CPU (2 × 0.5 = 1.0).
	p := Plan(rasNow, RASSnapshot{Nodes: emptyNodes("n0"), DAGs: []RASDAG{dag}})
	if got := dagPlan(t, p, "A").NewConsumers; got != 2 {
		t.Errorf("after producers: %d consumers, want 2", got)
	}
	// A producer still running (CPU 0.2): shuffle profile, and all three
	// fit (0.2 + 3 × 0.1 CPU, 0.2 + 3 × 0.2 I/O = 0.8).
	p = Plan(rasNow, RASSnapshot{
		Nodes: []RASNode{{ID: "n0", Running: []RASAttempt{{"A", RASProducer, Profile{CPU: 0.2, IO: 0.2}}}}},
		DAGs:  []RASDAG{dag},
	})
	if got := dagPlan(t, p, "A").NewConsumers; got != 3 {
		t.Errorf("during producers: %d consumers, want 3", got)
	}
}

// Whatever the snapshot, no node is planned past 1.0 in any resource, the
// counts add up, and the same snapshot gives the same plan.
func TestPlanNeverOverloads(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	prof := func() Profile {
		return Profile{CPU: 0.05 + 0.5*rng.Float64(), Memory: 0.05 + 0.3*rng.Float64(), IO: 0.05 + 0.5*rng.Float64()}
	}
	for round := 0; round < 200; round++ {
		snap := RASSnapshot{}
		for i := 0; i < 1+rng.Intn(4); i++ {
			d := RASDAG{ID: string(rune('A' + i)), Order: i,
				Producers: RASProducers{Pending: rng.Intn(30), Profile: prof(), MeanTaskTime: time.Duration(rng.Intn(100)) * time.Second},
				Consumers: RASConsumers{Pending: rng.Intn(6), Shuffle: prof(), Reduce: prof()}}
			if rng.Intn(2) == 0 {
				d.Goal = rasNow.Add(time.Duration(rng.Intn(600)-100) * time.Second)
			}
			snap.DAGs = append(snap.DAGs, d)
		}
		for i := 0; i < 1+rng.Intn(6); i++ {
			n := RASNode{ID: string(rune('a' + i))}
			if rng.Intn(2) == 0 {
				n.Running = []RASAttempt{{"A", RASProducer, snap.DAGs[0].Producers.Profile}}
			}
			snap.Nodes = append(snap.Nodes, n)
		}
		p := Plan(rasNow, snap)
		if !reflect.DeepEqual(p, Plan(rasNow, snap)) {
			t.Fatalf("round %d: two plans of one snapshot differ", round)
		}
		// Per DAG and kind: the slots no running attempt fills.
		free := map[string]int{}
		planned := map[string]int{}
		for _, n := range p.Nodes {
			if n.Load.CPU > 1+1e-9 || n.Load.Memory > 1+1e-9 || n.Load.IO > 1+1e-9 {
				t.Fatalf("round %d: node %s planned to %+v", round, n.ID, n.Load)
			}
			for _, s := range n.Slots {
				k := s.DAG + "/" + s.Kind.String()
				free[k] += max(s.Planned-s.Running, 0)
				planned[k] += s.Planned
			}
		}
		for i, d := range p.DAGs {
			in := snap.DAGs[i]
			if d.NewProducers != min(free[d.ID+"/producer"], in.Producers.Pending) ||
				d.NewConsumers != min(free[d.ID+"/consumer"], in.Consumers.Pending) {
				t.Fatalf("round %d: %s: %+v, nodes' free slots %v, pending %d/%d", round, d.ID, d, free, in.Producers.Pending, in.Consumers.Pending)
			}
			if d.Producers != planned[d.ID+"/producer"] || d.Consumers != planned[d.ID+"/consumer"] {
				t.Fatalf("round %d: %s plans %d/%d, nodes %v", round, d.ID, d.Producers, d.Consumers, planned)
			}
		}
	}
}

func TestRASSnapshotValidate(t *testing.T) {
	ok := RASSnapshot{Nodes: emptyNodes("n0"), DAGs: []RASDAG{producers("A", 0, 1, Profile{CPU: 0.5})}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid snapshot: %v", err)
	}
	bad := []RASSnapshot{
		{Nodes: emptyNodes("n0", "n0")},
		{DAGs: []RASDAG{producers("A", 0, 1, Profile{}), producers("A", 1, 1, Profile{})}},
		{DAGs: []RASDAG{producers("A", 0, -1, Profile{})}},
		{DAGs: []RASDAG{producers("A", 0, 1, Profile{CPU: 1.2})}},
		{DAGs: []RASDAG{{ID: "A", Consumers: RASConsumers{Reduce: Profile{IO: math.NaN()}}}}},
		{Nodes: []RASNode{{ID: "n0", Running: []RASAttempt{{"A", RASProducer, Profile{Memory: -0.1}}}}}},
	}
	for i, s := range bad {
		var ie *RASInputError
		err := s.Validate()
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		if !asRASInputError(err, &ie) {
			t.Errorf("case %d: %T, want *RASInputError", i, err)
		}
	}
}

func asRASInputError(err error, target **RASInputError) bool {
	e, ok := err.(*RASInputError)
	*target = e
	return ok
}
