package cluster

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure: the model may import only the standard library's pure parts
// and packing, and never reads the clock: the compiler-checked form of
// "no clock, no IO".
func TestPure(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	banned := map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "io/ioutil": true, "syscall": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			std := !strings.Contains(strings.Split(path, "/")[0], ".")
			if (!std && path != "github.com/ebb-am/ebb/packing") || banned[path] {
				t.Errorf("%s imports %s: the cluster model takes only the standard library's pure parts and packing", f, path)
			}
		}
		for _, clock := range []string{"time.Now", "time.Sleep", "time.After(", "time.NewTimer", "time.NewTicker"} {
			if strings.Contains(string(src), clock) {
				t.Errorf("%s uses %s: time comes in as now", f, clock)
			}
		}
	}
}
