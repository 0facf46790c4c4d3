package core

import (
	"testing"

	"github.com/ebb-am/ebb/packing"
)

// With the cluster's nodes known (YARN's node reports), a group's first
// three 1024 MB workers are asked for on one 4096 MB node under packed
// (threshold 100%, min.nodes 1): 1024, 2048, 3072 MB stay at or below the
// threshold there. Under uniform the core names no node and the
// ResourceManager spreads them. Without the cluster's nodes the core knew
// no node at all and every first ask was relaxed.
func TestFirstWorkersGoWhereThePackerPrefers(t *testing.T) {
	for _, scheme := range []string{"packed", "uniform"} {
		alloc, err := packing.New(scheme, packing.Options{HighThresholdPercent: 100, MinNodes: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := newFake(t, CoreOptions{Allocator: alloc})
		f.c.SetClusterNodes(f.now, []ClusterNode{{ID: "nm1:1", CapacityMB: 4096}, {ID: "nm2:1", CapacityMB: 4096}, {ID: "nm3:1", CapacityMB: 4096}})
		f.submit(`
name: three
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 3, memoryMB: 1024}]
`)
		if f.wanted["g"] != 3 {
			t.Fatalf("%s: wanted %d, want 3", scheme, f.wanted["g"])
		}
		switch scheme {
		case "packed":
			if len(f.prefer) != 3 || f.prefer[0] == "" || f.prefer[1] != f.prefer[0] || f.prefer[2] != f.prefer[0] {
				t.Errorf("packed: prefer %q, want one node three times", f.prefer)
			}
		case "uniform":
			if f.prefer != nil {
				t.Errorf("uniform: prefer %q, want none (the RM's own placement)", f.prefer)
			}
		}
	}
}
