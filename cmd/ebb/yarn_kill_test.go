package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ebb/am/yarn"
)

// TestYarnKill: ebb kill of a running application ends it KILLED within a
// few heartbeats, with every container released.
func TestYarnKill(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: long
containerGroup: {name: sleepers, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "600"], parallelism: 2, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--detach"}, amSets...)...)
	if err != nil {
		t.Fatalf("ebb submit --detach: %v\n%s", err, out)
	}
	id := y.appID(out)
	// Both tasks running (in one worker: 2 × 128 MB fit in 256 MB), seen
	// through the AM's client API, found by application id.
	running := regexp.MustCompile(`: 0/2 tasks, 2 running`)
	y.waitFor("both tasks to run", 60*time.Second, func() bool {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		return err == nil && running.MatchString(out)
	})
	if n := y.runningContainers(id); n < 2 {
		t.Fatalf("the RM counts %d running containers, want the AM and a worker", n)
	}
	start := time.Now()
	out, err = y.ebb(ctx, "kill", id.String())
	took := time.Since(start)
	if err != nil {
		t.Fatalf("ebb kill: %v\n%s", err, out)
	}
	if !strings.Contains(out, "KILLED") {
		t.Errorf("ebb kill says %q", out)
	}
	if r := y.report(id); r.State != yarn.StateKilled {
		t.Errorf("RM reports %s %s, want KILLED", r.State, r.Final)
	}
	t.Logf("ebb kill took %s", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("ebb kill took %s, more than a few heartbeats", took)
	}
	y.waitFor("every container released", 30*time.Second, func() bool { return y.runningContainers(id) == 0 })
	if ok, err := y.fs.Exists(stagingDir(y.user, id)); err != nil || ok {
		t.Errorf("staging dir %s still exists (%v)", stagingDir(y.user, id), err)
	}
	// The NM's SIGTERM reached the AM, which stopped its workers before
	// the SIGKILL that follows.
	y.waitFor("the AM to log the SIGTERM", 10*time.Second, func() bool {
		for _, cs := range y.containerLogs(id) {
			for _, c := range cs {
				if b, err := os.ReadFile(filepath.Join(c, "am.log")); err == nil && strings.Contains(string(b), "SIGTERM: stopping the workers") {
					return true
				}
			}
		}
		return false
	})
}
