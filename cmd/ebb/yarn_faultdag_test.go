package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// faultDAG is one DAG of a test that stops a daemon of the faults cluster
// (a NodeManager, the NameNode) while the DAG's tasks run. Each task says
// it started by a file in started, named by the task and its attempt and
// ending in -<attempt>, so the test can wait for the tasks to run before
// the fault and tell a first attempt from one run again after it.
type faultDAG struct {
	y       *yarnTest
	ctl     *testcluster.Control
	name    string // the DAG's, unique to the run: prefix-<nanoseconds>
	started string // the tasks' start markers
}

// newFaultDAG holds the faults cluster for t (newFaultsTest) and names a
// DAG for it.
func newFaultDAG(t *testing.T, prefix string) *faultDAG {
	y, ctl := newFaultsTest(t)
	return &faultDAG{y: y, ctl: ctl, name: fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()), started: t.TempDir()}
}

// markers names the tasks' start markers, sorted.
func (f *faultDAG) markers() []string {
	es, _ := os.ReadDir(f.started)
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// reruns names the markers of attempts after a task's first.
func (f *faultDAG) reruns() []string {
	var out []string
	for _, m := range f.markers() {
		if !strings.HasSuffix(m, "-0") {
			out = append(out, m)
		}
	}
	return out
}

// waitStarted waits for n tasks to have started.
func (f *faultDAG) waitStarted(what string, n int) {
	f.y.waitFor(what, 90*time.Second, func() bool { return len(f.markers()) >= n })
}

// submitSpread submits spec with `ebb submit`, followed, its workers
// spread over the NodeManagers (ebb.packing.scheme=uniform), and kills the
// application when the test ends, so that a failed test leaves no DAG
// waiting.
func (f *faultDAG) submitSpread(ctx context.Context, spec string) (yarn.AppID, <-chan submitted) {
	sets := append(append([]string{}, amSets...), "--set", "ebb.packing.scheme=uniform")
	id, followed := f.y.submitFollowed(ctx, f.name, append([]string{spec}, sets...)...)
	f.y.t.Cleanup(func() { _, _ = f.y.ebb(context.Background(), "kill", id.String()) })
	return id, followed
}

// workerNodeManager picks a NodeManager (its index in the cluster's env)
// that runs workers of id and not its AM: the one a test may stop without
// stopping the AM. It gives the node's id and the workers there.
func (f *faultDAG) workerNodeManager(t *testing.T, id yarn.AppID) (nm int, node string, workers []string) {
	amNode, byNode := f.y.amNode(id), workersByNode(f.y.amLog(id))
	env := f.ctl.Env()
	for i := range 3 {
		n := env["NM"+strconv.Itoa(i)+"_NODE_ID"]
		if n != amNode && len(byNode[n]) > 0 {
			return i, n, byNode[n]
		}
	}
	t.Fatalf("no NodeManager but the AM's (%s) has workers: %v", amNode, byNode)
	return -1, "", nil
}

var failedAttemptsRe = regexp.MustCompile(`(\d+) failed attempts`)

// failedAttempts is the count `ebb submit` printed at the DAG's end (-1
// when it printed none).
func failedAttempts(submitOut string) int {
	m := failedAttemptsRe.FindStringSubmatch(submitOut)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// wantTaskResults checks that the output tree got (hdfsTree) holds task
// i's result r-<i> = "i\n" for each of n tasks.
func wantTaskResults(t *testing.T, got map[string]string, n int) {
	t.Helper()
	for i := range n {
		if r := got[fmt.Sprintf("r-%05d", i)]; r != fmt.Sprintf("%d\n", i) {
			t.Errorf("task %d's result: %q", i, r)
		}
	}
}
