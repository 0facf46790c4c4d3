package dag

import (
	"maps"
	"strings"
	"testing"
)

// Issue 23, item 4: a containerGroup may name a YARN node label; one YARN
// would not accept as a name is refused naming the field.
func TestGroupNodeLabel(t *testing.T) {
	const head = "name: r\ncontainerGroup: {name: g, workerMemoryMB: 512, nodeLabel: %s}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 256}]\n"
	s, err := Parse("r.yaml", []byte(strings.Replace(head, "%s", "gpu_nodes-1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Group.NodeLabel != "gpu_nodes-1" {
		t.Fatalf("nodeLabel %q", s.Group.NodeLabel)
	}
	for _, bad := range []string{"\"a b\"", "\"-x\"", "\"a&&b\""} {
		_, err := Parse("r.yaml", []byte(strings.Replace(head, "%s", bad, 1)))
		if err == nil || !strings.Contains(err.Error(), "containerGroup.nodeLabel") {
			t.Errorf("nodeLabel %s: error %v, want one naming containerGroup.nodeLabel", bad, err)
		}
	}
}

// Issue 23, item 5: a vertex may ask for other resource types per task.
// The group's workers carry, per type, the group's count if it names the
// type (a vertex may not ask for more), else the most any vertex asks.
func TestVertexResources(t *testing.T) {
	const spec = `name: r
containerGroup: {name: g, workerMemoryMB: 512%s}
vertices:
  - {name: a, command: "true", parallelism: 1, memoryMB: 256, resources: {yarn.io/gpu: 1, example.com/fpga: 2}}
  - {name: b, command: "true", parallelism: 1, memoryMB: 256, resources: {yarn.io/gpu: 2}}
  - {name: c, command: "true", parallelism: 1, memoryMB: 256}
`
	for _, tc := range []struct {
		group string
		want  map[string]int64
		err   string
	}{
		// gpu: max(1, 2) = 2; fpga: only a asks, 2.
		{"", map[string]int64{"yarn.io/gpu": 2, "example.com/fpga": 2}, ""},
		// the group's gpu: 4 stands; fpga from a.
		{", resources: {yarn.io/gpu: 4}", map[string]int64{"yarn.io/gpu": 4, "example.com/fpga": 2}, ""},
		// b asks 2 of the group's 1.
		{", resources: {yarn.io/gpu: 1}", nil, "vertices[1].resources.yarn.io/gpu"},
	} {
		s, err := Parse("r.yaml", []byte(strings.Replace(spec, "%s", tc.group, 1)))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("group {%s}: error %v, want one naming %s", tc.group, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := s.WorkerResources(); !maps.Equal(got, tc.want) {
			t.Errorf("group {%s}: worker resources %v, want %v", tc.group, got, tc.want)
		}
	}
	_, err := Parse("r.yaml", []byte("name: r\ncontainerGroup: {name: g}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 256, resources: {vcores: 2}}]\n"))
	if err == nil || !strings.Contains(err.Error(), "vertices[0].resources.vcores") {
		t.Errorf("vertex resources {vcores: 2}: error %v, want one naming the field", err)
	}
}

// Issue 23, item 5: a DAG asking more of a type than a worker can ever
// get is refused naming the field (the group's or the vertex's), who asks,
// the limit and its count; a type the cluster lacks counts as 0.
func TestCheckResources(t *testing.T) {
	s, err := Parse("r.yaml", []byte(`name: r
containerGroup: {name: g, resources: {yarn.io/gpu: 1}}
vertices:
  - {name: a, command: "true", parallelism: 1, memoryMB: 256}
  - {name: b, command: "true", parallelism: 1, memoryMB: 256, resources: {example.com/fpga: 2}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		most map[string]int64
		want string // "" = fits
	}{
		{map[string]int64{"yarn.io/gpu": 1, "example.com/fpga": 2}, ""},
		{map[string]int64{"yarn.io/gpu": 0, "example.com/fpga": 2}, "containerGroup.resources.yarn.io/gpu: 1 (group g): more than the limit holds (yarn.io/gpu: 0)"},
		{map[string]int64{"yarn.io/gpu": 4}, "vertices[1].resources.example.com/fpga: 2 (vertex b): more than the limit holds (example.com/fpga: 0)"},
	} {
		err := s.CheckResources(tc.most, "the limit")
		if (tc.want == "") != (err == nil) || err != nil && err.Error() != tc.want {
			t.Errorf("most %v: %v, want %q", tc.most, err, tc.want)
		}
	}
}
