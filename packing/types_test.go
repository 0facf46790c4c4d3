package packing

import "testing"

// Issue 23, item 5: other resource types rule nodes out. Three 8192 MB
// nodes: a is medium (4096 used, 50%), b is low (empty), c is medium
// (2048 used, 25%); only b and c have a GPU free. A 1024 MB request
// without types goes where memory says (packed: a, fullest medium;
// uniform: b, emptiest); with yarn.io/gpu: 1, packed takes c (the
// fullest medium node that has one) and uniform b; with 2 GPUs nothing
// fits.
func TestTypesRuleNodesOut(t *testing.T) {
	nodes := []Node{n("a", 8192, 4096), n("b", 8192, 0), n("c", 8192, 2048)}
	nodes[1].FreeTypes = map[string]int64{"yarn.io/gpu": 1}
	nodes[2].FreeTypes = map[string]int64{"yarn.io/gpu": 1}
	for _, tc := range []struct {
		scheme string
		gpus   int64
		want   string // "" = none fits
	}{
		{"packed", 0, "a"}, {"packed", 1, "c"}, {"packed", 2, ""},
		{"uniform", 0, "b"}, {"uniform", 1, "b"}, {"uniform", 2, ""},
	} {
		a, err := New(tc.scheme, Options{HighThresholdPercent: 80})
		if err != nil {
			t.Fatal(err)
		}
		req := Request{MemoryMB: 1024}
		if tc.gpus > 0 {
			req.Types = map[string]int64{"yarn.io/gpu": tc.gpus}
		}
		i, ok := a.Choose(nodes, req)
		got := ""
		if ok {
			got = nodes[i].ID
		}
		if got != tc.want {
			t.Errorf("%s, %d GPUs: chose %q, want %q", tc.scheme, tc.gpus, got, tc.want)
		}
	}
}
