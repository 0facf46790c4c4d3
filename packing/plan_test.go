package packing

import (
	"slices"
	"testing"
)

func TestPlanWorkers(t *testing.T) {
	packed, _ := New("packed", Options{HighThresholdPercent: 80})
	uniform, _ := New("uniform", Options{})
	count := func(ids []string) map[string]int {
		m := map[string]int{}
		for _, id := range ids {
			m[id]++
		}
		return m
	}

	// Empty 10-node cluster, capacity 10, workers of 1, 12 workers:
	// packed fills one low node to 8 (80%) and a second with the other 4.
	nodes := emptyNodes(10, 10)
	ids := PlanWorkers(packed, nodes, Request{MemoryMB: 1}, 12, 42)
	if len(ids) != 12 {
		t.Fatalf("len = %d", len(ids))
	}
	var per []int
	for _, c := range count(ids) {
		per = append(per, c)
	}
	slices.Sort(per)
	if !slices.Equal(per, []int{4, 8}) {
		t.Errorf("packed workers per node = %v, want [4 8]", per)
	}
	// The caller's slice is untouched: PlanWorkers works on a copy.
	for _, n := range nodes {
		if n.UsedMB != 0 || n.FitsMB != 10 {
			t.Fatalf("input node changed: %+v", n)
		}
	}
	// Same seed, same plan.
	if again := PlanWorkers(packed, nodes, Request{MemoryMB: 1}, 12, 42); !slices.Equal(again, ids) {
		t.Errorf("plan did not replay: %v vs %v", ids, again)
	}

	// A medium node is named first: b at 50% takes workers until
	// (5+k)/10 > 80%, i.e. k = 3 (80%), then a low node.
	nodes = []Node{n("a", 10, 0), n("b", 10, 5)}
	ids = PlanWorkers(packed, nodes, Request{MemoryMB: 1}, 3, 1)
	if !slices.Equal(ids, []string{"b", "b", "b"}) {
		t.Errorf("medium-first plan = %v", ids)
	}

	// uniform spreads 4 workers over 2 nodes: 2 each, alternating.
	ids = PlanWorkers(uniform, emptyNodes(2, 10), Request{MemoryMB: 1}, 4, 0)
	if !slices.Equal(ids, []string{"a", "b", "a", "b"}) {
		t.Errorf("uniform plan = %v", ids)
	}

	// Worker 4 GB, nodes with 5 and 3 free: one fits on a; the rest are
	// "" (anywhere): YARN may have room on nodes ebb has not seen.
	nodes = []Node{n("a", 10, 5), n("b", 10, 7)}
	ids = PlanWorkers(packed, nodes, Request{MemoryMB: 4}, 3, 0)
	if !slices.Equal(ids, []string{"a", "", ""}) {
		t.Errorf("plan with no room = %q", ids)
	}

	if ids := PlanWorkers(packed, nodes, Request{MemoryMB: 1}, 0, 0); ids != nil {
		t.Errorf("n=0 plan = %v", ids)
	}
}

// Issue 23, item 5: a plan counts the worker's other resource types as it
// goes. Two 10-unit nodes with 1 and 2 GPUs free, four 1-unit workers of
// one GPU each (memory alone would put all four on one node): each node is
// named as often as it has GPUs, the fourth worker goes anywhere (""), and
// the caller's nodes keep their own free counts.
func TestPlanWorkersCountsTypes(t *testing.T) {
	packed, _ := New("packed", Options{HighThresholdPercent: 100})
	nodes := emptyNodes(2, 10)
	nodes[0].FreeTypes = map[string]int64{"yarn.io/gpu": 1}
	nodes[1].FreeTypes = map[string]int64{"yarn.io/gpu": 2}
	ids := PlanWorkers(packed, nodes, Request{MemoryMB: 1, Types: map[string]int64{"yarn.io/gpu": 1}}, 4, 7)
	count := map[string]int{}
	for _, id := range ids {
		count[id]++
	}
	if count[nodes[0].ID] != 1 || count[nodes[1].ID] != 2 || count[""] != 1 {
		t.Errorf("plan %v: want %s once, %s twice, one anywhere", ids, nodes[0].ID, nodes[1].ID)
	}
	if nodes[0].FreeTypes["yarn.io/gpu"] != 1 || nodes[1].FreeTypes["yarn.io/gpu"] != 2 {
		t.Errorf("the plan changed the caller's nodes: %v, %v", nodes[0].FreeTypes, nodes[1].FreeTypes)
	}
}
