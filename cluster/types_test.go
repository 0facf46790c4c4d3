package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/packing"
)

// Issue 23, item 5: nodes' other resource types are placed by. Two ready
// 10 GB nodes with one GPU each, the packed allocator (which alone would
// stack 1 GB workers on one node): three workers of a group asking one GPU
// each get one per node, and the third waits (a fixed cluster, no room)
// until one is gone; a plain group still packs onto one node. Workers
// asking two GPUs are refused as too big, naming the type.
func TestNodeTypesPlaceWorkers(t *testing.T) {
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100})
	if err != nil {
		t.Fatal(err)
	}
	gpu := map[string]int64{"yarn.io/gpu": 1}
	m := build(t, Options{NodeTypes: gpu, MaxNodes: 2, KeepNodes: true, QueueUnplaced: true, Allocator: alloc}, &fakeNodes{}, 2)
	if _, err := m.Want(t0, Group{Name: "g", MemoryMB: 1024, Types: gpu}, 3, nil); err != nil {
		t.Fatal(err)
	}
	byNode := map[string]int{}
	var queued string
	for _, w := range m.Workers() {
		if w.Node == "" {
			queued = w.ID
		}
		byNode[w.Node]++
	}
	if byNode["n1"] != 1 || byNode["n2"] != 1 || byNode[""] != 1 {
		t.Fatalf("GPU workers by node %v, want one on n1, one on n2, one waiting", byNode)
	}
	m.Stop(m.Workers()[0].ID)
	m.Gone(at(1), m.Workers()[0].ID)
	if w, _ := m.Worker(queued); w.Node == "" {
		t.Errorf("the waiting GPU worker still waits after a GPU was freed")
	}
	if _, err := m.Want(t0, Group{Name: "p", MemoryMB: 1024}, 2, nil); err != nil {
		t.Fatal(err)
	}
	plain := map[string]bool{}
	for _, w := range m.Workers() {
		if w.Group == "p" {
			plain[w.Node] = true
		}
	}
	if len(plain) != 1 {
		t.Errorf("plain workers on %v, want packed onto one node", plain)
	}
	_, err = m.Want(t0, Group{Name: "g2", MemoryMB: 1024, Types: map[string]int64{"yarn.io/gpu": 2}}, 1, nil)
	var tb *TooBigError
	if !errors.As(err, &tb) || tb.Type != "yarn.io/gpu" || !strings.Contains(err.Error(), "2 yarn.io/gpu per worker, more than a node has (1)") {
		t.Errorf("two GPUs per worker on nodes of one: %v, want a TooBigError naming yarn.io/gpu", err)
	}
}
