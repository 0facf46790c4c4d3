package core

import (
	"testing"

	"github.com/ebb-am/ebb/packing"
)

// Issue 23, item 5: the packer counts memory only, so a group asking for
// other resource types (a GPU) names no node: a strict ask on a node
// without a free GPU would pend forever. A plain group still does.
func TestGroupWithResourceTypesNamesNoNode(t *testing.T) {
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100, MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ res, want string }{{"", "named nodes"}, {", resources: {yarn.io/gpu: 1}", "no node"},
		// Issue 23, item 4: nor does a labelled group: the packer knows no
		// partitions, and a strict ask outside its own would pend forever.
		{", nodeLabel: gpu", "no node"}} {
		f := newFake(t, CoreOptions{Allocator: alloc})
		f.c.SetClusterNodes(f.now, []ClusterNode{{ID: "n1", CapacityMB: 4096}, {ID: "n2", CapacityMB: 4096}})
		f.submit(`
name: r
containerGroup: {name: g, workerMemoryMB: 512` + tc.res + `}
vertices: [{name: v, command: "true", parallelism: 3, memoryMB: 512}]
`)
		if got := len(f.prefer) > 0; got != (tc.want == "named nodes") || f.wanted["g"] != 3 {
			t.Errorf("group {%s}: wanted %d on %v, want 3 on %s", tc.res, f.wanted["g"], f.prefer, tc.want)
		}
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
