package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// Issue 27, item 2: a small DAG with ebb.am.uber.enabled runs on a worker
// inside the AM's container. The same word count runs twice, normally and
// uber: the uber run has no container but the AM's (no worker was asked
// of the RM: the NodeManagers hold one container directory for it, and
// the AM's allocate calls received none), its in-AM worker ran the
// attempts, and both outputs are the test's own count.
func TestYarnUberSmallDAG(t *testing.T) {
	y := newYarnTest(t)
	text := wordCountInput(t)
	y.putInput("part-0.txt", text)
	run := func(mode string, sets ...string) yarn.AppID {
		spec := y.writeDAG(fmt.Sprintf(`
name: yarn-uber-%s
containerGroup: {name: wc, workerMemoryMB: 512}
output: %s
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 1, memoryMB: 128, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 128}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, mode, y.fs.URL(y.dir+"/output-"+mode), y.fs.URL(y.dir+"/input")))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out, err := y.ebb(ctx, append(append([]string{"submit", spec}, amSets...), sets...)...)
		t.Logf("ebb submit (%s):\n%s", mode, out)
		if err != nil {
			t.Fatalf("ebb submit (%s): %v", mode, err)
		}
		id := y.appID(out)
		if r := y.report(id); r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
			t.Fatalf("%s: RM reports %s %s (%s), want FINISHED SUCCEEDED", mode, r.State, r.Final, r.Diagnostics)
		}
		sameCounts(t, y.hdfsCounts(y.dir+"/output-"+mode), countText(string(text)))
		return id
	}
	normal := run("normal")
	uber := run("uber", "--set", "ebb.am.uber.enabled=true", "--set", "ebb.am.uber.memory.mb=512")

	if n := y.containerCount(normal); n < 2 {
		t.Fatalf("the normal run had %d containers, want the AM's and a worker's: the count cannot tell", n)
	}
	if n := y.containerCount(uber); n != 1 {
		t.Errorf("the uber run had %d containers, want 1 (the AM's): %v", n, y.containerLogs(uber))
	}
	// An ask withdrawn before the RM filled it leaves no container: the
	// AM's allocate lines (written whenever asks change) tell of it.
	log := y.amLog(uber)
	if !strings.Contains(log, "runs in the AM's container (uber)") || !strings.Contains(log, "0 allocated, 0 launched") ||
		strings.Contains(log, "asks changed") {
		t.Errorf("the uber run's AM log does not say the DAG ran uber with no container asked for or allocated:\n%s", log)
	}
}

// containerCount counts the application's containers over every
// NodeManager (their log directories; log aggregation is off).
func (y *yarnTest) containerCount(id yarn.AppID) int {
	n := 0
	for _, cs := range y.containerLogs(id) {
		n += len(cs)
	}
	return n
}
