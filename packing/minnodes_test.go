package packing

import "testing"

// ebb.packing.min.nodes counts the cluster's nodes, not the nodes a
// group's workers happen to be on: with min.nodes 3, a group whose workers
// sit on two nodes of a 3-node cluster is still packed.
func TestMinNodesCountsTheCluster(t *testing.T) {
	alloc, err := New("packed", Options{HighThresholdPercent: 60, MinNodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	nodes := []Node{
		{ID: "a", CapacityMB: 4096, UsedMB: 1024, FitsMB: 3072}, // medium: packed's first choice
		{ID: "b", CapacityMB: 4096, UsedMB: 0, FitsMB: 4096},    // low: where spreading goes
	}
	req := Request{MemoryMB: 512, Seed: 1}
	i, _ := alloc.Choose(nodes, req)
	if nodes[i].ID != "b" {
		t.Fatalf("2 nodes seen, cluster size unknown: chose %s, want b (fewer nodes than min.nodes: spread)", nodes[i].ID)
	}
	req.ClusterNodes = 3
	i, _ = alloc.Choose(nodes, req)
	if got := nodes[i].ID; got != "a" {
		t.Fatalf("a 3-node cluster: chose %s, want a (packed: the medium node)", got)
	}
}
