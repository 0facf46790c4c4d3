package packing

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The index must answer what a scan answers, node for node: random lists
// with repeated usages (ties), nodes without capacity, nodes that fit
// nothing, and lists that grow, shrink and change between requests.
func TestSpreadIndexAgreesWithScan(t *testing.T) {
	for _, scheme := range []string{"uniform", "packed"} {
		// packed with MinNodes above every list size hands every request to spread.
		a, err := New(scheme, Options{HighThresholdPercent: 60, MinNodes: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		ix := a.(Indexer).NewIndex()
		var nodes []Node
		random := func(k int) Node {
			c := []int64{0, 8, 16, 16, 16, 32}[r.IntN(6)]
			used := int64(0)
			if c > 0 {
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
				t.Fatalf("%s step %d, %d MB over %d nodes: index %d %v (covered %v), scan %d %v", scheme, step, req.MemoryMB, len(nodes), got, ok, covered, want, wantOK)
			}
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
		{"packed, the cluster at its minimum", px, Request{MemoryMB: 1, ClusterNodes: 3}, false},
	} {
		if _, _, covered := tc.x.Choose(tc.req); covered != tc.want {
			t.Errorf("%s: covered %v, want %v", tc.name, covered, tc.want)
		}
	}
}
