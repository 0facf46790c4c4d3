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
	for _, tc := range []struct{ res, want string }{{"", "named nodes"}, {", resources: {yarn.io/gpu: 1}", "no node"}} {
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
