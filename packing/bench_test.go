package packing

import (
	"fmt"
	"testing"
)

// benchNodes is a 1,000-node cluster of 64 GB nodes at mixed usage: a
// third empty, a third medium, a third high, so every step of packed is
// exercised.
func benchNodes() []Node {
	nodes := make([]Node, 1000)
	for i := range nodes {
		used := int64(0)
		switch i % 3 {
		case 1:
			used = int64(8192 * (1 + i%4)) // 12.5%..50%
		case 2:
			used = 60 * 1024 // 94%
		}
		nodes[i] = Node{ID: fmt.Sprintf("node%04d:8042", i), CapacityMB: 65536, UsedMB: used, FitsMB: 65536 - used}
	}
	return nodes
}

func benchChoose(b *testing.B, scheme string, mb int64, prefs []string) {
	a, err := New(scheme, Options{HighThresholdPercent: 60, MinNodes: 5})
	if err != nil {
		b.Fatal(err)
	}
	nodes := benchNodes()
	req := Request{MemoryMB: mb, Preferred: prefs}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req.Seed = uint64(i)
		if _, ok := a.Choose(nodes, req); !ok {
			b.Fatal("no node")
		}
	}
}

// BenchmarkPackedChoose: one request against 1,000 nodes. The AM core
// needs 50,000 placements a second, i.e. under 20µs each.
func BenchmarkPackedChoose(b *testing.B) {
	b.Run("medium", func(b *testing.B) { benchChoose(b, "packed", 1024, nil) })
	// 40 GB fits no medium node without crossing 60%: the low step, two scans.
	b.Run("low", func(b *testing.B) { benchChoose(b, "packed", 40*1024, nil) })
	b.Run("preferred", func(b *testing.B) {
		benchChoose(b, "packed", 1024, []string{"node0001:8042", "node0500:8042", "node0998:8042"})
	})
}

func BenchmarkUniformChoose(b *testing.B) {
	benchChoose(b, "uniform", 1024, nil)
}
