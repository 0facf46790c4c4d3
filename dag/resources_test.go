package dag

import (
	"strings"
	"testing"
)

// Issue 23, item 5: a containerGroup may ask for other YARN resource
// types per worker; a name that is not one, memory or vcores under
// another name, or a count below 1 is refused naming the field.
func TestGroupResources(t *testing.T) {
	const head = "name: r\ncontainerGroup: {name: g, workerMemoryMB: 512, resources: {%s}}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 256}]\n"
	s, err := Parse("r.yaml", []byte(strings.Replace(head, "%s", "yarn.io/gpu: 2", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Group.Resources["yarn.io/gpu"]; got != 2 {
		t.Fatalf("resources %v, want yarn.io/gpu: 2", s.Group.Resources)
	}
	for _, tc := range []struct{ res, want string }{
		{"yarn.io/gpu: 0", "containerGroup.resources.yarn.io/gpu"},
		{"vcores: 2", "workerVCores"},
		{"\"a,b\": 1", "want a YARN resource type name"},
	} {
		_, err := Parse("r.yaml", []byte(strings.Replace(head, "%s", tc.res, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("resources {%s}: error %v, want one naming %q", tc.res, err, tc.want)
		}
	}
}
