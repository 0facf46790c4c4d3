package core

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Task and DAG states change only through the becomeX functions of
// transitions.go, so each transition keeps its counts with it: no other
// file of the Core assigns a state.
func TestStatesChangeOnlyInTransitions(t *testing.T) {
	assign := regexp.MustCompile(`\.state\s*=[^=]|\bstate:\s`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "transitions.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if assign.MatchString(code) {
				t.Errorf("%s:%d assigns a state outside transitions.go: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
