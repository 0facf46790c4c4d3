package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ebb-am/ebb/internal/docgen"
)

var update = flag.Bool("update", false, "rewrite the generated references under docs/reference/")

// The references under docs/reference/ are generated from the code (keys,
// command tree, metrics, API); this fails when one is stale, as
// scripts/genproto.sh --check does for protobuf. -update rewrites them.
func TestGeneratedDocs(t *testing.T) {
	api, err := docgen.API("../../am/ui", "../../am/core")
	if err != nil {
		t.Fatal(err)
	}
	root := newRoot()
	root.InitDefaultHelpCmd()
	for name, want := range map[string]string{
		"config.md":  docgen.Config(),
		"cli.md":     docgen.CLI(root),
		"metrics.md": docgen.Metrics(),
		"api.md":     api,
	} {
		path := filepath.Join("../../docs/reference", name)
		got, err := os.ReadFile(path)
		if err == nil && string(got) == want {
			continue
		}
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("docs/reference/%s is stale: run %s", name, docgen.Regenerate)
	}
}
