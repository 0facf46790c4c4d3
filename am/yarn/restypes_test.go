package yarn

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Issue 23, item 5: a group's other resource types are in its asks'
// capability on the wire (resource_value_map), and come back from the
// RM's maximum capability; memory and vcores, which the RM lists there
// too, stay in their own fields.
func TestResourceTypesOnTheWire(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: core.GroupInfo{Name: "gpu", MemoryMB: 1024, VCores: 1, Resources: map[string]int64{"yarn.io/gpu": 1}}, Total: 2})
	req := b.Request()
	if len(req.Asks) != 1 {
		t.Fatalf("asks %+v, want one", req.Asks)
	}
	wire, err := proto.Marshal(resourceProto(req.Asks[0].Capability))
	if err != nil {
		t.Fatal(err)
	}
	var p hadooppb.ResourceProto
	if err := proto.Unmarshal(wire, &p); err != nil {
		t.Fatal(err)
	}
	rv := p.GetResourceValueMap()
	if len(rv) != 1 || rv[0].GetKey() != "yarn.io/gpu" || rv[0].GetValue() != 1 {
		t.Fatalf("resource_value_map %v, want yarn.io/gpu=1", rv)
	}
	p.ResourceValueMap = append(p.ResourceValueMap, &hadooppb.ResourceInformationProto{Key: proto.String("memory-mb"), Value: proto.Int64(1024)})
	if got := resourceFrom(&p); got.Types != "yarn.io/gpu=1" || got.MemoryMB != 1024 {
		t.Errorf("read back %+v, want 1024 MB and yarn.io/gpu=1", got)
	}
}

// A worker no container can hold is refused with the reason, not asked
// for forever: a type the cluster lacks, or more than its largest
// container has.
func TestResourceTypesTooBig(t *testing.T) {
	limit := Resource{MemoryMB: 8192, VCores: 8, Types: "yarn.io/gpu=2"}
	for _, tc := range []struct {
		types, want string
	}{
		{"yarn.io/gpu=2", ""},
		{"yarn.io/gpu=3", "workers need 3, more than the cluster's largest container holds (2)"},
		{"yarn.io/fpga=1", "the cluster has no such type (yarn.resource-types lists yarn.io/gpu)"},
	} {
		r := Resource{MemoryMB: 1024, VCores: 1, Types: tc.types}
		why := typesTooBig(r, limit)
		if (tc.want == "") != (why == "") || !strings.Contains(why, tc.want) || tooBig(r, limit) != (tc.want != "") {
			t.Errorf("%s under %s: %q (too big %v), want %q", tc.types, limit.Types, why, tooBig(r, limit), tc.want)
		}
	}
}

// The RM's per-container maximum for a type may exceed every node's: a
// group asking more of a type than any NodeManager has is refused with
// what it asked and the most one node has, not left pending.
func TestNoNodeHoldsTheTypes(t *testing.T) {
	nodes := map[string]NodeReport{"n1:1": {Node: "n1:1", Types: "yarn.io/gpu=1"}, "n2:1": {Node: "n2:1"}}
	if why := noNodeHolds(Resource{Types: "yarn.io/gpu=1"}, nodes); why != "" {
		t.Errorf("one GPU, n1 has one: refused %q", why)
	}
	why := noNodeHolds(Resource{Types: "yarn.io/gpu=2"}, nodes)
	if !strings.Contains(why, "yarn.io/gpu=2 (the most on one node: 1)") {
		t.Errorf("two GPUs, nodes of at most one: %q", why)
	}
	if why := noNodeHolds(Resource{}, nodes); why != "" {
		t.Errorf("no types asked: refused %q", why)
	}
}

// The most of a type one container can hold is the RM's maximum, but no
// more than the best-endowed node has (the maximum may exceed them all);
// a type the RM does not list is not there at all.
func TestMostPerContainer(t *testing.T) {
	limit := Resource{MemoryMB: 8192, VCores: 8, Types: "yarn.io/gpu=4"}
	nodes := map[string]NodeReport{"a:1": {Types: "yarn.io/gpu=1"}, "b:1": {Types: "yarn.io/gpu=2,example.com/fpga=1"}}
	if got := mostPerContainer(limit, nodes); len(got) != 1 || got["yarn.io/gpu"] != 2 {
		t.Errorf("with nodes: %v, want yarn.io/gpu 2 only", got)
	}
	if got := mostPerContainer(limit, nil); got["yarn.io/gpu"] != 4 {
		t.Errorf("no nodes known: %v, want the maximum's 4", got)
	}
}
