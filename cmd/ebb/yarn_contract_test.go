package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// On the minicluster: a producer that is a plain shell command, exiting 0
// without writing its partition files, fails the application with a
// reason naming the missing files and the task contract, instead of being
// re-run for ever. The context's limit is the guard.
func TestYarnProducerWithoutPartitionsFailsClearly(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: lazy
containerGroup: {name: lazy, workerMemoryMB: 512}
output: ` + y.fs.URL(y.dir+"/lazy-out") + `
vertices:
  - {name: src, command: "true", parallelism: 2, memoryMB: 128}
  - {name: dst, command: "true", parallelism: 2, memoryMB: 128}
edges:
  - {from: src, to: dst, type: scatter-gather}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	if err == nil {
		t.Fatalf("the DAG succeeded:\n%s", out)
	}
	if ctx.Err() != nil {
		t.Fatalf("ebb submit did not end within 3 minutes:\n%s", out)
	}
	r := y.report(y.appID(out))
	if r.Final != yarn.Failed {
		t.Errorf("final status %s, want FAILED", r.Final)
	}
	for _, want := range []string{"partition files", "task contract"} {
		if !strings.Contains(r.Diagnostics, want) {
			t.Errorf("the RM's diagnostics lack %q: %q", want, r.Diagnostics)
		}
	}
}
