// Package traces finds the real public traces that tests and benchmarks
// replay. They live in shared/traces beside the repository (never inside
// it, never at an absolute path): this package walks up from the test's
// working directory to the module root and looks beside it.
//
// It imports only the standard library and testing, and is for tests.
package traces

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// modulePath is the line go.mod must start with to be ebb's root.
const modulePath = "module github.com/ebb-am/ebb"

// Root is the repository root: the nearest directory upward from dir
// whose go.mod declares ebb's module.
func Root(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte(modulePath)) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of %s above %s", modulePath, dir)
		}
		d = parent
	}
}

// Dir is shared/traces beside the repository root found from dir.
func Dir(dir string) (string, error) {
	root, err := Root(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(root), "shared", "traces"), nil
}

// Path returns the path of a shared trace (rel is relative to
// shared/traces). A missing trace fails the test under CI=true, where the
// traces are part of the checkout's surroundings, and skips it elsewhere.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := Dir(".")
	if err == nil {
		p := filepath.Join(dir, rel)
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("shared trace %s is missing (CI=true: that is a failure): %v", rel, err)
	}
	tb.Skipf("shared trace %s is missing: %v", rel, err)
	return ""
}
