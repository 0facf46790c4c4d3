package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A producer that is a plain shell command, exiting 0 without writing its
// partition files, ends the DAG with a reason naming the missing files and
// the contract, instead of being re-run for ever (a 4-task vertex once ran
// 54 times in 60 s and never ended). ebbCommand's 3-minute limit is the
// guard; the run ends after the producer's three attempts.
func TestLocalProducerWithoutPartitionsFailsClearly(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "lazy.yaml")
	if err := os.WriteFile(spec, []byte(`name: lazy
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: src, command: "true", parallelism: 4, memoryMB: 128}
  - {name: dst, command: "true", parallelism: 2, memoryMB: 128}
edges:
  - {from: src, to: dst, type: scatter-gather}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := runEbb(t, "local", "run", spec, "--output", t.TempDir()+"/out")
	if err == nil {
		t.Fatalf("the DAG succeeded:\n%s", log)
	}
	for _, want := range []string{"FAILED", "partition files", "task contract"} {
		if !strings.Contains(log, want) {
			t.Errorf("the output lacks %q:\n%s", want, log)
		}
	}
}
