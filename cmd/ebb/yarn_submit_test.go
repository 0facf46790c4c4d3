package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
)

// TestYarnWordCount is the acceptance run: ebb submit of word count with
// its input in HDFS and its output to hdfs://, on the real minicluster.
func TestYarnWordCount(t *testing.T) {
	y := newYarnTest(t)
	text, err := os.ReadFile("../../examples/wordcount-input.txt")
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	// About 6 MB, so that the maps take a moment and more than the first
	// worker to start gets one.
	for i := 0; i < 8000; i++ {
		fmt.Fprintf(&in, "%s\nround %d of the test\n", text, i)
	}
	if err := y.fs.MkdirPrivate(y.dir + "/input"); err != nil {
		t.Fatal(err)
	}
	if _, err := y.fs.WriteFile(y.dir+"/input/part-0.txt", []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Workers of 1536 MB on 4096 MB NodeManagers: at most two per node, so
	// the four map tasks (one per worker) need at least two nodes.
	spec := y.writeDAG(fmt.Sprintf(`
name: yarn-wordcount
containerGroup: {name: wc, workerMemoryMB: 1536}
output: %s
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 4, memoryMB: 1536, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 512}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, y.fs.URL(y.dir+"/output"), y.fs.URL(y.dir+"/input")))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	start := time.Now()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	t.Logf("ebb submit took %s:\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded || r.Type != "EBB" {
		t.Errorf("RM reports %s %s type %q (%s), want FINISHED SUCCEEDED EBB", r.State, r.Final, r.Type, r.Diagnostics)
	}
	sameCounts(t, y.hdfsCounts(y.dir+"/output"), countText(in.String()))

	logs := y.containerLogs(id)
	amLogs, workerNodes, ran := 0, 0, 0
	for dir, cs := range logs {
		workers := 0
		for _, c := range cs {
			if strings.HasSuffix(c, "_000001") {
				amLogs++
				for _, f := range []string{"stdout", "stderr", "am.log"} {
					if _, err := os.Stat(filepath.Join(c, f)); err != nil {
						t.Errorf("AM container log: %v", err)
					}
				}
				// The log is am.log; stderr keeps warnings and errors only.
				if b, _ := os.ReadFile(filepath.Join(c, "stderr")); strings.Contains(string(b), "level=info") {
					t.Errorf("AM container %s: info lines in stderr:\n%s", c, b)
				}
				continue
			}
			// A worker container that was stopped while the NM was still
			// localizing it has a log dir and no logs: count only those
			// that ran, and want both files from them.
			_, errOut := os.Stat(filepath.Join(c, "stdout"))
			stderr, errErr := os.ReadFile(filepath.Join(c, "stderr"))
			wlog, errLog := os.ReadFile(filepath.Join(c, "worker.log"))
			if errLog == nil && strings.Contains(string(wlog), "registered") {
				workers++
				if errOut != nil || errErr != nil {
					t.Errorf("worker container %s: stdout %v, stderr %v", c, errOut, errErr)
				}
				if strings.Contains(string(stderr), "level=info") {
					t.Errorf("worker container %s: info lines in stderr:\n%s", c, stderr)
				}
				// A worker told to stop says so; it does not report a broken stream.
				if strings.Contains(string(wlog), "stream to the AM broke") {
					t.Errorf("worker container %s: %s", c, wlog)
				}
			}
		}
		ran += workers
		// The NM made a log dir for a worker container: the RM placed one
		// here and the NM started launching it.
		for _, c := range cs {
			if !strings.HasSuffix(c, "_000001") {
				workerNodes++
				break
			}
		}
		t.Logf("NodeManager %s: %d containers, %d workers that ran", filepath.Base(dir), len(cs), workers)
	}
	if amLogs != 1 {
		t.Errorf("found %d AM container log dirs, want 1: %v", amLogs, logs)
	}
	if workerNodes < 2 {
		t.Errorf("workers were placed on %d NodeManagers, want at least 2: %v", workerNodes, logs)
	}
	if ran == 0 {
		t.Errorf("no worker container has logs")
	}
	y.waitFor("the RM to show no running containers", 30*time.Second, func() bool { return y.runningContainers(id) == 0 })
	if ok, err := y.fs.Exists(yarnclient.StagingDir(y.user, id)); err != nil || ok {
		t.Errorf("staging dir %s still exists (%v)", yarnclient.StagingDir(y.user, id), err)
	}
}

// TestYarnTaskTooBig: a task asking more than the cluster's largest
// container fails the DAG fast, and the application ends FAILED naming the
// limit.
func TestYarnTaskTooBig(t *testing.T) {
	y := newYarnTest(t)
	max := testcluster.MaxAllocationMB(t)
	spec := y.writeDAG(fmt.Sprintf(`
name: too-big
containerGroup: {name: big, workerMemoryMB: %d}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0"], parallelism: 1, memoryMB: %d}
`, max+512, max+512))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	took := time.Since(start)
	t.Logf("ebb submit took %s:\n%s", took.Round(time.Millisecond), out)
	if err == nil {
		t.Fatalf("ebb submit of a DAG above the maximum allocation succeeded")
	}
	id := y.appID(out)
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Failed {
		t.Errorf("RM reports %s %s, want FINISHED FAILED", r.State, r.Final)
	}
	if !strings.Contains(r.Diagnostics, "yarn.scheduler.maximum-allocation-mb") || !strings.Contains(r.Diagnostics, fmt.Sprint(max)) {
		t.Errorf("diagnostics do not name the limit: %q", r.Diagnostics)
	}
	if took > 60*time.Second {
		t.Errorf("took %s to fail: not fast", took)
	}
	y.waitFor("the RM to show no running containers", 30*time.Second, func() bool { return y.runningContainers(id) == 0 })
}

// TestYarnAMTooBig: an AM container above the cluster's largest is refused
// before anything is submitted, naming the key to change.
func TestYarnAMTooBig(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: small
containerGroup: {name: s, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn], parallelism: 1, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, "submit", spec, "--set", fmt.Sprintf("mr3.am.resource.memory.mb=%d", testcluster.MaxAllocationMB(t)+1))
	if err == nil || !strings.Contains(out, "mr3.am.resource.memory.mb") || !strings.Contains(out, "yarn.scheduler.maximum-allocation-mb") {
		t.Errorf("ebb submit with a too-big AM: %v\n%s", err, out)
	}
	if strings.Contains(out, "submitted application") {
		t.Errorf("the application was submitted anyway:\n%s", out)
	}
}

// TestYarnAutoSizedWorkers: a DAG that leaves the worker size to ebb gets
// workers sized from its tasks and the RM's limits: one 100 MB task per
// worker, rounded up to the minicluster's 64 MB minimum allocation = 128 MB
// (not a worker sized for tasks that never come).
func TestYarnAutoSizedWorkers(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: auto-sized
containerGroup: {name: auto}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0"], parallelism: 1, memoryMB: 100}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	t.Logf("ebb submit:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	max := testcluster.MaxAllocationMB(t)
	want := fmt.Sprintf("group auto: workers of 128 MB, sized by ebb for DAG auto-sized (tasks of up to 100 MB; at most 4 per worker; largest container %d MB, smallest 64 MB)", max)
	y.waitFor("the AM's log to say how it sized the group", 30*time.Second, func() bool {
		for _, cs := range y.containerLogs(id) {
			for _, c := range cs {
				if b, err := os.ReadFile(filepath.Join(c, "am.log")); err == nil && strings.HasSuffix(c, "_000001") &&
					strings.Contains(string(b), want) && regexp.MustCompile(`worker \S+ registered: group auto, node \S+, 128 MB`).Match(b) {
					return true
				}
			}
		}
		return false
	})
}
