package packing

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The index must answer what a scan answers, node for node
// (agreesWithScan).
func TestSpreadIndexAgreesWithScan(t *testing.T) {
	for _, scheme := range []string{"uniform", "packed"} {
		// packed with MinNodes above every list size hands every request to spread.
		a, err := New(scheme, Options{HighThresholdPercent: 60, MinNodes: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		agreesWithScan(t, scheme, a, 1)
	}
}

// packed's index at or above its minimum node count (and crossing it, at
// MinNodes 20) answers what packed's scan does: the three steps, the
// random pick among low nodes, and usages that sit on the threshold.
func TestPackedIndexAgreesWithScan(t *testing.T) {
	for k, o := range []Options{{HighThresholdPercent: 60}, {HighThresholdPercent: 50, MinNodes: 20},
		{HighThresholdPercent: 100}, {HighThresholdPercent: 0, MinNodes: 5}, {HighThresholdPercent: 75, MinNodes: 1}} {
		a, err := New("packed", o)
		if err != nil {
			t.Fatal(err)
		}
		agreesWithScan(t, fmt.Sprintf("packed %+v", o), a, uint64(k+2))
	}
}

// agreesWithScan checks a's index against a.Choose over random lists with
// repeated usages (ties), nodes without capacity, nodes that fit nothing,
// and lists that grow, shrink and change between requests.
func agreesWithScan(t *testing.T, name string, a Allocator, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	ix := a.(Indexer).NewIndex()
	var nodes []Node
	random := func(k int) Node {
		c := []int64{0, 8, 16, 16, 16, 32}[r.IntN(6)]
		used := int64(0)
		if c > 0 && r.IntN(4) > 0 { // a quarter empty: packed's low nodes
			used = r.Int64N(c + 1)
		}
		return Node{ID: fmt.Sprint("n", k), CapacityMB: c, UsedMB: used, FitsMB: r.Int64N(max(c-used, 0)+2) - 1}
	}
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(10); {
		case op <= 2 || len(nodes) == 0: // a node joins (more often than one leaves: lists grow to hundreds)
			nodes = append(nodes, random(step))
			ix.Resize(len(nodes))
			ix.Set(len(nodes)-1, nodes[len(nodes)-1])
		case op == 3 && len(nodes) > 1 && step%2 == 0: // one leaves: the last takes its place
			i, last := r.IntN(len(nodes)), len(nodes)-1
			nodes[i] = nodes[last]
			nodes = nodes[:last]
			if i < last {
				ix.Set(i, nodes[i])
			}
			ix.Resize(last)
		case op == 3 && len(nodes) > 1: // the last leaves
			nodes = nodes[:len(nodes)-1]
			ix.Resize(len(nodes))
		default: // one changes
			i := r.IntN(len(nodes))
			nodes[i] = random(step)
			ix.Set(i, nodes[i])
		}
		req := Request{MemoryMB: r.Int64N(20) - 1, Seed: uint64(step)}
		want, wantOK := a.Choose(nodes, req)
		got, ok, covered := ix.Choose(req)
		if !covered || got != want || ok != wantOK {
			t.Fatalf("%s step %d, %d MB over %d nodes: index %d %v (covered %v), scan %d %v", name, step, req.MemoryMB, len(nodes), got, ok, covered, want, wantOK)
		}
	}
}

// What the index does not cover it says so: the caller scans.
func TestSpreadIndexCovers(t *testing.T) {
	u, _ := New("uniform", Options{})
	p, _ := New("packed", Options{MinNodes: 3})
	ix, px := u.(Indexer).NewIndex(), p.(Indexer).NewIndex()
	for _, x := range []Index{ix, px} {
		x.Resize(2)
		x.Set(0, n("a", 10, 1))
		x.Set(1, n("b", 10, 2))
	}
	for _, tc := range []struct {
		name string
		x    Index
		req  Request
		want bool
	}{
		{"uniform, plain", ix, Request{MemoryMB: 1}, true},
		{"uniform, a preference", ix, Request{MemoryMB: 1, Preferred: []string{"b"}}, false},
		{"uniform, a resource type", ix, Request{MemoryMB: 1, Types: map[string]int64{"yarn.io/gpu": 1}}, false},
		{"packed below its minimum (2 nodes of 3)", px, Request{MemoryMB: 1}, true},
		{"packed, the cluster at its minimum", px, Request{MemoryMB: 1, ClusterNodes: 3}, true},
		{"packed, a preference", px, Request{MemoryMB: 1, ClusterNodes: 3, Preferred: []string{"b"}}, false},
		{"packed, a resource type", px, Request{MemoryMB: 1, ClusterNodes: 3, Types: map[string]int64{"yarn.io/gpu": 1}}, false},
	} {
		if _, _, covered := tc.x.Choose(tc.req); covered != tc.want {
			t.Errorf("%s: covered %v, want %v", tc.name, covered, tc.want)
		}
	}
}
