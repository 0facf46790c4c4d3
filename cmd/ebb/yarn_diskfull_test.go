package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
)

// diskFullDAG: six tasks of 2048 MB in workers of 2048 MB, spread: more
// than two NodeManagers hold, so every one of the three gets a worker.
// Each task writes 3 MB before its result.
const diskFullDAG = `
name: %s
containerGroup: {name: g, workerMemoryMB: 2048}
output: %s
vertices:
  - name: v
    command: 'dd if=/dev/zero of=$EBB_OUTPUT_DIR/blob bs=1M count=3 2>/dev/null && echo $EBB_TASK_INDEX > $EBB_OUTPUT_DIR/r'
    parallelism: 6
    memoryMB: 2048
`

// TestYarnDiskFull is issue 33's full disk: NodeManager 0's application
// directories (where its containers' working directories, and so its
// workers' attempt directories, are made) are put on a 2 MB file system
// (a tmpfs mounted over <its local dir>/usercache/<user>/appcache for the
// test). An attempt there fails writing its 3 MB, named "no space left
// on device"; its worker reports itself unhealthy; the AM takes the node
// as UNHEALTHY and places nothing more there; the DAG succeeds on the
// other nodes with each task's result once; the worker there does not
// wedge: it is gone when the application ends.
func TestYarnDiskFull(t *testing.T) {
	testcluster.Exclusive(t)
	y := newYarnTest(t)
	env := testcluster.Env(t)
	node, local := env["NM0_NODE_ID"], env["NM0_LOCAL_DIRS"]
	if node == "" || local == "" || strings.Contains(local, ",") {
		t.Fatalf("the cluster's env names NodeManager 0 as %q with local dirs %q: want one dir", node, local)
	}
	appcache := filepath.Join(local, "usercache", yarnclient.User(), "appcache")
	if err := os.MkdirAll(appcache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", appcache, "tmpfs", 0, "size=2m,mode=0755"); err != nil {
		t.Fatalf("mounting a 2 MB tmpfs over %s (the test needs root, as CI runs): %v", appcache, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(appcache, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", appcache, err)
		}
	})
	t.Logf("NodeManager 0 (%s): %s is a 2 MB tmpfs", node, appcache)

	out := y.dir + "/out"
	name := fmt.Sprintf("diskfull-%d", time.Now().UnixNano())
	spec := y.writeDAG(fmt.Sprintf(diskFullDAG, name, y.fs.URL(out)))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sets := append(append([]string{}, amSets...), "--set", "ebb.packing.scheme=uniform")
	start := time.Now()
	id, followed := y.submitFollowed(ctx, name, append([]string{spec}, sets...)...)
	res := <-followed
	took := time.Since(start)
	y.wantSucceeded(t, id, res, false)
	amLog := y.amLog(id)
	onNode := workersByNode(amLog)[node]
	failed := failedAttempts(res.out)
	unhealthy := strings.Contains(amLog, "reports itself unhealthy (no space left on device")
	t.Logf("the DAG took %s; workers on the full node: %v; it reported itself unhealthy: %v; failed attempts: %d",
		took.Round(time.Millisecond), onNode, unhealthy, failed)
	if len(onNode) == 0 {
		t.Fatalf("no worker was placed on %s: nothing was tested", node)
	}
	if !unhealthy {
		t.Errorf("no worker reported itself unhealthy for a full disk; the AM log:\n%s", tail(amLog, 40))
	}
	if !strings.Contains(amLog, "no space left on device") || !strings.Contains(amLog, "node "+node+" takes no more work") {
		t.Errorf("the AM log does not name the full disk and the node it stopped using")
	}
	// Each worker there fails at most one attempt: then it says it is
	// unhealthy and the AM places nothing more on its node.
	if failed < 0 || failed > len(onNode) {
		t.Errorf("%d failed attempts with %d workers on the full node, want at most one each", failed, len(onNode))
	}
	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	wantTaskResults(t, got, 6)
	y.waitFor("the workers to be gone", 30*time.Second, func() bool { return len(y.workerPIDs(id)) == 0 })
}
