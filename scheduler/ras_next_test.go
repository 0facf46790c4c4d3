package scheduler

import "testing"

func TestNextDAG(t *testing.T) {
	p25 := Profile{CPU: 0.25, Memory: 0.1, IO: 0.1}
	big := Profile{CPU: 0.6, Memory: 0.1, IO: 0.1}
	// A plan by hand: on n0, A should hold 3 producers, B 1 producer and
	// 1 consumer. Utilities: A -0.5, B -0.2, C 0.3.
	plan := RASPlan{
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
	run := func(as ...RASAttempt) RASNode { return RASNode{ID: "n0", Running: as} }
	a := RASAttempt{"A", RASProducer, p25}
	bc := RASAttempt{"B", RASConsumer, p25}
	tests := []struct {
		name       string
		node       RASNode
		candidates []RASCandidate
		want       string // "dag/kind", or "" for none
	}{
		{"furthest below plan first", run(a, bc), // A 1 of 3 (2 short), B producer 0 of 1 (1 short)
			[]RASCandidate{{"B", RASProducer, p25}, {"A", RASProducer, p25}}, "A/producer"},
		{"below plan beats lower utility", run(a, a, a), // A at plan, B consumer 1 short
			[]RASCandidate{{"A", RASProducer, p25}, {"B", RASConsumer, p25}}, "B/consumer"},
		{"equal shortfall: lowest utility", run(a, a), // A 1 short (-0.5), B producer 1 short (-0.2)
			[]RASCandidate{{"B", RASProducer, p25}, {"A", RASProducer, p25}}, "A/producer"},
		{"only what fits", run(a, bc), // load CPU 0.5: A's big task (0.6) does not fit
			[]RASCandidate{{"A", RASProducer, big}, {"C", RASProducer, p25}}, "C/producer"},
		{"nothing fits", run(a, a, bc), // CPU 0.75 + 0.6 > 1
			[]RASCandidate{{"A", RASProducer, big}}, ""},
		{"task cap", run(a, a, a, bc), // 4 = MaxTasksPerNode
			[]RASCandidate{{"C", RASProducer, Profile{CPU: 0.01}}}, ""},
		{"no candidates", run(), nil, ""},
		{"over plan: producers before consumers", run(a, a, a), // B consumer 1 short is not a candidate; both C's are over plan
			[]RASCandidate{{"C", RASConsumer, p25}, {"C", RASProducer, p25}}, "C/producer"},
		{"over plan: lowest utility", run(a, a, a),
			[]RASCandidate{{"C", RASProducer, p25}, {"A", RASProducer, p25}}, "A/producer"},
		{"DAG newer than the plan counts as the floor", run(a, a, a),
			[]RASCandidate{{"A", RASProducer, p25}, {"N", RASProducer, p25}}, "N/producer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := NextDAG(plan, tt.node, tt.candidates)
			got := ""
			if ok {
				got = c.DAG + "/" + c.Kind.String()
			}
			if got != tt.want {
				t.Errorf("NextDAG = %q, want %q", got, tt.want)
			}
		})
	}
}

// A node the plan does not know (a worker that joined after the cycle) is
// still used, lowest utility first.
func TestNextDAGUnknownNode(t *testing.T) {
	plan := RASPlan{DAGs: []RASDAGPlan{{ID: "A", Utility: 0.5}, {ID: "B", Order: 1, Utility: -1}}}
	p := Profile{CPU: 0.5}
	c, ok := NextDAG(plan, RASNode{ID: "new"}, []RASCandidate{{"A", RASProducer, p}, {"B", RASProducer, p}})
	if !ok || c.DAG != "B" {
		t.Errorf("NextDAG = %+v %v, want B", c, ok)
	}
}

// Started one by one as NextDAG says, a node never passes 1.0: the AM's
// loop of calls fills it exactly to what fits.
func TestNextDAGFillsWithoutOverload(t *testing.T) {
	plan := RASPlan{DAGs: []RASDAGPlan{{ID: "A"}, {ID: "B", Order: 1}}}
	cands := []RASCandidate{
		{"A", RASProducer, Profile{CPU: 0.3, Memory: 0.1, IO: 0.1}},
		{"B", RASProducer, Profile{CPU: 0.1, Memory: 0.1, IO: 0.4}},
	}
	node := RASNode{ID: "n0"}
	for {
		c, ok := NextDAG(plan, node, cands)
		if !ok {
			break
		}
		node.Running = append(node.Running, RASAttempt(c))
	}
	// Equal utilities, A first by order each time: A until CPU 0.9 (3 × 0.3),
	// then B (CPU 1.0, I/O 0.3 + 0.4 = 0.7); then nothing fits.
	var load Profile
	count := map[string]int{}
	for _, a := range node.Running {
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
