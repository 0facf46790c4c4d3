package core

import (
	"maps"
	"testing"

	"github.com/ebb-am/ebb/packing"
)

// Issue 23, items 4 and 5: where a packed group's workers are asked for.
// Two 4096 MB nodes, n1 with one GPU, n2 with two (as the world reported).
// Three 512 MB workers: a plain group names nodes (memory alone would put
// all three on one); a GPU group names each node at most as often as it
// has a GPU free (n1 once, n2 twice), never one it does not know a free GPU
// on; on nodes that reported no GPU it names none (anywhere: a strict ask
// would pend forever); a labelled group names none (the packer knows no
// partitions, and a strict ask outside the label's would pend forever).
func TestPackedAsksCountTypesAndLabels(t *testing.T) {
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100, MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	withGPUs := []ClusterNode{{ID: "n1", CapacityMB: 4096, Types: map[string]int64{"yarn.io/gpu": 1}},
		{ID: "n2", CapacityMB: 4096, Types: map[string]int64{"yarn.io/gpu": 2}}}
	noGPUs := []ClusterNode{{ID: "n1", CapacityMB: 4096}, {ID: "n2", CapacityMB: 4096}}
	for _, tc := range []struct {
		name  string
		group string
		nodes []ClusterNode
		want  map[string]int // named node -> workers; "" = anywhere
	}{
		{"plain", "", withGPUs, nil}, // checked below: all three named
		{"gpu", ", resources: {yarn.io/gpu: 1}", withGPUs, map[string]int{"n1": 1, "n2": 2}},
		{"gpu, nodes without", ", resources: {yarn.io/gpu: 1}", noGPUs, map[string]int{"": 3}},
		{"labelled", ", nodeLabel: gpu", withGPUs, map[string]int{}},
	} {
		f := newFake(t, CoreOptions{Allocator: alloc})
		f.c.SetClusterNodes(f.now, tc.nodes)
		f.submit(`
name: r
containerGroup: {name: g, workerMemoryMB: 512` + tc.group + `}
vertices: [{name: v, command: "true", parallelism: 3, memoryMB: 512}]
`)
		got := map[string]int{}
		for _, n := range f.prefer {
			got[n]++
		}
		switch {
		case f.wanted["g"] != 3:
			t.Errorf("%s: wanted %d workers, want 3", tc.name, f.wanted["g"])
		case tc.want == nil:
			if len(f.prefer) != 3 || got[""] != 0 {
				t.Errorf("%s: asked on %v, want three named nodes", tc.name, f.prefer)
			}
		case !maps.Equal(got, tc.want):
			t.Errorf("%s: asked on %v, want %v", tc.name, f.prefer, tc.want)
		}
	}
}

// Issue 23, item 4: a packed group without a label never names a node in a
// labelled partition (its asks are the default partition's; a strict one
// there would pend forever), even when that node is the only one with
// room: n1 (8192 MB, label gpu) and n2 (256 MB, too small for a 512 MB
// worker) leave nothing to name, so the three go anywhere.
func TestPackedAsksAvoidLabelledNodes(t *testing.T) {
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100, MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, CoreOptions{Allocator: alloc})
	f.c.SetClusterNodes(f.now, []ClusterNode{{ID: "n1", CapacityMB: 8192, Label: "gpu"}, {ID: "n2", CapacityMB: 256}})
	f.submit(`
name: r
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 3, memoryMB: 512}]
`)
	for _, n := range f.prefer {
		if n != "" {
			t.Fatalf("asked on %v: want no named node (n1 is in partition gpu)", f.prefer)
		}
	}
	if f.wanted["g"] != 3 {
		t.Errorf("wanted %d, want 3", f.wanted["g"])
	}
}

// Issue 23, items 4 and 5: the workers a group asks for carry its node
// label and the resource types its vertices need (a vertex's gpu: 1 in a
// group that names none), so the world's asks do.
func TestWorkersCarryLabelAndVertexResources(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(`
name: r
containerGroup: {name: g, workerMemoryMB: 512, nodeLabel: gpu}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 512, resources: {yarn.io/gpu: 1}}]
`)
	if f.group.NodeLabel != "gpu" || f.group.Resources["yarn.io/gpu"] != 1 {
		t.Errorf("workers wanted for %+v, want label gpu and yarn.io/gpu 1", f.group)
	}
}
