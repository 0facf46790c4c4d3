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
	for _, leaf := range []string{"fsys", "commit", "hdfsfs", "s3fs", "worker", "task", "amclient"} {
		for _, p := range deps(t, module+leaf) {
			if p == module+"am" || strings.HasPrefix(p, module+"am/") {
				t.Errorf("%s depends on %s: leaf packages must not import the AM", leaf, p)
			}
		}
	}
}

// The gateway (yarnclient: submit, follow, kill) talks to an AM through
// amclient and never compiles the AM's server (package am, its gRPC
// services and loop); it uses am/yarn's RM client half only.
func TestGatewayDoesNotCompileTheAMServer(t *testing.T) {
	const am = "github.com/ebb-am/ebb/am"
	for _, p := range deps(t, "github.com/ebb-am/ebb/yarnclient") {
		if p == am {
			t.Errorf("yarnclient depends on %s (go list -deps ./yarnclient | grep 'ebb/am$'): reach the AM through amclient", am)
		}
	}
}

func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}
