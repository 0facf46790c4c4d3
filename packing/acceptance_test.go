package packing

import (
	"slices"
	"testing"
)

// place runs reqs one-unit requests through a, updating usage between
// calls as the AM core does, and returns the units placed on each node.
func place(t *testing.T, a Allocator, nodes []Node, reqs int) []int64 {
	t.Helper()
	for r := 0; r < reqs; r++ {
		i, ok := a.Choose(nodes, Request{MemoryMB: 1, Seed: uint64(r)})
		if !ok {
			t.Fatalf("%s: request %d did not fit", a.Name(), r)
		}
		nodes[i].UsedMB++
		nodes[i].FitsMB--
	}
	used := make([]int64, len(nodes))
	for i, n := range nodes {
		used[i] = n.UsedMB
	}
	return used
}

// emptyNodes is n nodes of capacity c, nothing used.
func emptyNodes(n int, c int64) []Node {
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{ID: string(rune('a' + i)), CapacityMB: c, FitsMB: c}
	}
	return nodes
}

// The seed's worked example (DESIGN.md §7): 10 nodes × 10 slots, 20
// one-slot requests, threshold 80%.
func TestAcceptanceTenNodes(t *testing.T) {
	opts := Options{HighThresholdPercent: 80, MinNodes: 5}
	tests := []struct {
		scheme string
		want   []int64 // units per node, sorted descending
	}{
		// packed: request 1 finds only low nodes and takes one at random
		// (A). A is then medium (1/10 = 10%) and keeps taking requests
		// while (used+1)/10 <= 80%: requests 2..8 bring it to 8/10.
		// Request 9 would make A 9/10 = 90% > 80%, so the medium step has
		// no node; a second low node B takes 8 the same way (requests
		// 9..16), and a third, C, takes the last 4 (17..20): 8+8+4 = 20,
		// and 10-3 = 7 nodes stay empty. Busy nodes at 20/30 = 67%.
		{"packed", []int64{8, 8, 4, 0, 0, 0, 0, 0, 0, 0}},
		// uniform: always the emptiest node, ties to the lowest index:
		// requests 1..10 go to nodes 0..9, 11..20 again to 0..9: 20/10 = 2
		// each.
		{"uniform", []int64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.scheme, func(t *testing.T) {
			a, err := New(tt.scheme, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := place(t, a, emptyNodes(10, 10), 20)
			slices.Sort(got)
			slices.Reverse(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("units per node = %v, want %v", got, tt.want)
			}
		})
	}
}
