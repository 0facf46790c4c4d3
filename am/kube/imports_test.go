package kube

import (
	"os/exec"
	"strings"
	"testing"
)

// The Book is pure because the import graph says so: besides the core
// (itself pure, am/core's own test) only standard packages that do no IO.
// client-go and the API's types belong to the world that talks to the API
// server, not here.
func TestBookImportsOnlyPurePackages(t *testing.T) {
	const module = "github.com/ebb-am/ebb/"
	allowed := map[string]bool{
		module + "am/core": true,
		"errors":           true, "fmt": true, "hash/fnv": true, "maps": true, "regexp": true,
		"slices": true, "sort": true, "strconv": true, "strings": true,
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+"am/kube").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if !allowed[p] {
			t.Errorf("am/kube imports %q: the Book may import only am/core and pure standard packages (no client-go, no IO, no clock)", p)
		}
	}
	deps, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"am/kube").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, deps)
	}
	for _, p := range strings.Fields(string(deps)) {
		if strings.HasPrefix(p, "k8s.io/") || strings.HasPrefix(p, "sigs.k8s.io/") {
			t.Errorf("am/kube depends on %q: Kubernetes' own packages stay out of the Book", p)
		}
	}
}
