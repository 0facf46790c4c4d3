package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/conf"
)

var update = flag.Bool("update", false, "rewrite generated sections of README.md")

// The README's key table is conf's table: this fails when they drift.
func TestREADMEKeys(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	const begin, end = "<!-- keys:begin -->\n", "<!-- keys:end -->"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q ... %q markers", begin, end)
	}
	want := conf.Markdown()
	if !strings.HasSuffix(want, "\n") {
		want += "\n"
	}
	got := s[i+len(begin) : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("README.md's key table is stale: run go test ./cmd/ebb -run TestREADMEKeys -update")
}
