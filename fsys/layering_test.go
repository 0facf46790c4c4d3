package fsys

import (
	"os/exec"
	"strings"
	"testing"
)

// Dependencies point down: the leaf packages that read files and run
// attempts never compile the AM (its core, its gRPC server, its worlds).
func TestLeafPackagesDoNotDependOnTheAM(t *testing.T) {
	const module = "github.com/ebb-am/ebb/"
	for _, leaf := range []string{"fsys", "commit", "hdfsfs", "worker", "task"} {
		out, err := exec.Command("go", "list", "-deps", module+leaf).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", leaf, err, out)
		}
		for _, p := range strings.Fields(string(out)) {
			if p == module+"am" || strings.HasPrefix(p, module+"am/") {
				t.Errorf("%s depends on %s: leaf packages must not import the AM", leaf, p)
			}
		}
	}
}
