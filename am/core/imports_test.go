package core

import (
	"os/exec"
	"strings"
	"testing"
)

// The Core is pure because the compiler's import graph says so, not by
// convention. Its own files may import dag, scheduler, packing and the
// standard library's pure packages (no net, os, exec, syscall, log); its
// whole graph may hold no other ebb package and no third-party package
// but the YAML reader dag parses specs with (from bytes, no IO).
func TestCoreImportsOnlyPurePackages(t *testing.T) {
	const module = "github.com/ebb-am/ebb/"
	allowedDirect := map[string]bool{
		module + "dag": true, module + "scheduler": true, module + "packing": true,
		"cmp": true, "container/heap": true, "errors": true, "fmt": true, "hash/fnv": true, "iter": true,
		"maps": true, "math": true, "path": true, "slices": true, "sort": true, "strconv": true,
		"strings": true, "time": true,
	}
	for _, p := range goList(t, `{{join .Imports "\n"}}`, module+"am/core") {
		if !allowedDirect[p] {
			t.Errorf("am/core imports %q: the core may import only dag, scheduler, packing and pure standard packages (it does no IO and reads no clock)", p)
		}
	}
	allowedDeps := map[string]bool{
		module + "am/core": true, module + "dag": true, module + "scheduler": true, module + "packing": true,
		"gopkg.in/yaml.v3": true,
	}
	for _, p := range goList(t, "{{if not .Standard}}{{.ImportPath}}{{end}}", "-deps", module+"am/core") {
		if !allowedDeps[p] {
			t.Errorf("am/core depends on %q: only dag, scheduler, packing (and dag's YAML reader) may be in its graph", p)
		}
	}
}

func goList(t *testing.T, format string, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-f", format}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Fields(string(out))
}
