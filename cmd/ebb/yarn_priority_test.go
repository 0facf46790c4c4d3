package main

import (
	"context"
	"fmt"
	"github.com/ebb-am/ebb/internal/testcluster"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// EnvPriorityConfDir names a minicluster started for the priority test:
//
//	EBB_MINICLUSTER_ARGS="--set yarn.cluster.max-application-priority=10 \
//	  --set yarn.scheduler.capacity.maximum-am-resource-percent=0.01" \
//	  scripts/minicluster/start.sh /tmp/ebb-minicluster-priority
//
// Application priorities above 0 need the first (YARN's default maximum
// is 0: every priority is cut to 0); the second lets one AM at a time be
// active, so the queue is full with one application running.
const envPriorityConfDir = "EBB_TEST_PRIORITY_HADOOP_CONF_DIR"

// Issue 23, item 6, on YARN: with the queue full (one AM running), a later
// application submitted with --priority 5 is activated before an earlier
// one at priority 1.
func TestYarnPriorityActivatedFirst(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envPriorityConfDir, "see envPriorityConfDir's comment in cmd/ebb/yarn_priority_test.go")
	t.Setenv("EBB_TEST_HADOOP_CONF_DIR", dir)
	y := newYarnTest(t)
	dagOf := func(name string, secs int) string {
		return y.writeDAG(fmt.Sprintf(`
name: %s
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "8", --seconds, "%d"], parallelism: 1, memoryMB: 256}
`, name, secs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	outs := map[string]string{}
	var mu sync.Mutex
	submit := func(name string, secs int, prio string) {
		spec := dagOf(name, secs) // written here, on the test's goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := y.ebb(ctx, append([]string{"submit", spec, "--priority", prio}, amSets...)...)
			mu.Lock()
			defer mu.Unlock()
			outs[name] = fmt.Sprintf("%s (err %v)", out, err)
		}()
	}
	stateOf := func(name string) (yarn.AppID, yarn.AppState, bool) {
		id, ok := y.newestApp(name)
		if !ok {
			return id, 0, false
		}
		return id, y.report(id).State, true
	}
	waitState := func(name string, want yarn.AppState) {
		y.waitFor(name+" "+want.String(), 2*time.Minute, func() bool {
			_, st, ok := stateOf(name)
			return ok && st == want
		})
	}
	submit("prio-running", 20, "0")
	waitState("prio-running", yarn.StateRunning)
	submit("prio-low", 1, "1")
	waitState("prio-low", yarn.StateAccepted)
	submit("prio-high", 1, "5")
	waitState("prio-high", yarn.StateAccepted)
	// Both wait behind prio-running; the first of the two to run is the
	// one YARN activated first.
	var first string
	y.waitFor("prio-low or prio-high to run", 3*time.Minute, func() bool {
		for _, n := range []string{"prio-high", "prio-low"} {
			if _, st, ok := stateOf(n); !ok || st == yarn.StateRunning || st.Done() {
				if first == "" {
					first = n
				}
			}
		}
		return first != ""
	})
	wg.Wait()
	t.Logf("first activated: %s; outputs:\n%v", first, outs)
	if first != "prio-high" {
		t.Fatalf("%s was activated first, want prio-high (priority 5 over 1)", first)
	}
}
