package main

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// Issue 23 on a shared cluster: room the AM counted on is gone. The session
// AM read the node reports at its start; then an admin shrinks the AM's
// own node to 1024 MB (rmadmin -updateNodeResource), where the AM's 256 MB
// container leaves no room for a 1024 MB worker, and the RM tells the AM
// nothing. To the packer that node is still the medium one, its first
// choice, so the DAG's asks name it and can never be met there. After
// ebb.packing.ask.timeout.ms (its default, 10 s) they go to another node
// and the DAG finishes; with asks that wait for ever it is still waiting
// when the test gives up.
func TestYarnUnansweredAskGoesElsewhere(t *testing.T) {
	y := newYarnTest(t)
	y.waitIdle()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id := y.startPackedSession(ctx, "shrunk")
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	var amNode string
	y.waitFor("the AM's node", time.Minute, func() bool { amNode = y.amNode(id); return amNode != "" })
	shrinkNode(t, amNode, 1024)

	spec := y.writeDAG(`
name: shrunk
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "8", --seconds, "2"], parallelism: 2, memoryMB: 1024}
`)
	dctx, dcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer dcancel()
	out, err := y.ebb(dctx, "dag", "submit", "--app", id.String(), "--wait", "--output", filepath.Join(t.TempDir(), "out"), spec)
	t.Logf("dag submit:\n%s", out)
	log := y.amLog(id)
	if dctx.Err() != nil {
		t.Fatalf("the DAG did not finish within 2 minutes after %s shrank (are its asks still waiting there?)", amNode)
	}
	if err != nil {
		t.Fatalf("the DAG after %s shrank: %v; AM log:\n%s", amNode, err, log)
	}
	if want := "no worker came for its 2 asks on node " + amNode; !strings.Contains(log, want) {
		t.Errorf("the AM's log lacks %q", want)
	}
	byNode := workersByNode(log)
	t.Logf("workers by node: %v (the AM's, shrunk: %s)", byNode, amNode)
	if len(byNode[amNode]) > 0 {
		t.Errorf("workers %v on the shrunk node %s", byNode[amNode], amNode)
	}
}

// shrinkNode gives node (host:port) mb of memory until the test ends, as
// an admin would with rmadmin -updateNodeResource.
func shrinkNode(t *testing.T, node string, mb int64) {
	t.Helper()
	full, _ := strconv.ParseInt(testcluster.EnvValue(t, "NM_MEMORY_MB"), 10, 64)
	vcores, _ := strconv.Atoi(testcluster.EnvValue(t, "NM_VCORES"))
	h, p, _ := net.SplitHostPort(node)
	port, _ := strconv.Atoi(p)
	admin := yarnrpc.NewAdminClient(testcluster.EnvValue(t, "RM_ADMIN_ADDRESS"), yarnclient.User())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := admin.UpdateNodeResource(ctx, h, int32(port), mb, int32(vcores), nil); err != nil {
		t.Fatalf("shrinking %s to %d MB: %v", node, mb, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin.UpdateNodeResource(ctx, h, int32(port), full, int32(vcores), nil); err != nil {
			t.Errorf("giving %s its %d MB back: %v", node, full, err)
		}
		_ = admin.Close()
	})
}

// startPackedSession starts a detached session AM named name that packs
// from one node on, every node medium up to full, and returns its id.
func (y *yarnTest) startPackedSession(ctx context.Context, name string, sets ...string) yarn.AppID {
	y.t.Helper()
	sets = append(append([]string{"--set", "ebb.packing.scheme=packed", "--set", "ebb.packing.min.nodes=1",
		"--set", "ebb.packing.high.threshold.percent=100"}, sets...), amSets...)
	return y.startSession(ctx, name, sets...)
}
