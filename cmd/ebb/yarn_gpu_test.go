package main

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// envGPUConfDir names a minicluster whose NodeManagers have one yarn.io/gpu
// each, and node labels on with the default queue allowed partition
// "labelled" (yarn_labels_test.go):
//
//	EBB_MINICLUSTER_ARGS="--set yarn.resource-types=yarn.io/gpu \
//	  --set yarn.nodemanager.resource-type.yarn.io/gpu=1 \
//	  --set yarn.scheduler.capacity.resource-calculator=org.apache.hadoop.yarn.util.resource.DominantResourceCalculator \
//	  --set yarn.node-labels.enabled=true --set yarn.node-labels.fs-store.root-dir=file://\${hadoop.tmp.dir}/node-labels \
//	  --set yarn.scheduler.capacity.root.accessible-node-labels=labelled \
//	  --set yarn.scheduler.capacity.root.accessible-node-labels.labelled.capacity=100 \
//	  --set yarn.scheduler.capacity.root.default.accessible-node-labels=labelled \
//	  --set yarn.scheduler.capacity.root.default.accessible-node-labels.labelled.capacity=100" \
//	  scripts/minicluster/start.sh /tmp/ebb-minicluster-gpu
//
// (scripts/test.sh starts it so.)
const envGPUConfDir = "EBB_TEST_GPU_HADOOP_CONF_DIR"

// Issue 23, item 5, on YARN: workers of a group asking yarn.io/gpu: 1 get
// one GPU each, so with one GPU per NodeManager no two of them share a
// node, though memory would fit several; all three nodes' GPUs are used
// (the packer, which counts memory only, names no node for them: its
// strict asks for one node pended, and one worker ran all six tasks); the
// DAG succeeds. Without the type in the asks the RM packs them together.
func TestYarnGPUWorkersOnePerNode(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv("EBB_TEST_HADOOP_CONF_DIR", dir)
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: yarn-gpu
containerGroup: {name: gpu, workerMemoryMB: 512, resources: {yarn.io/gpu: 1}}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "8", --seconds, "5"], parallelism: 6, memoryMB: 512}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec,
		"--set", "ebb.packing.scheme=packed", "--set", "ebb.packing.min.nodes=1",
		"--set", "ebb.packing.high.threshold.percent=100"}, amSets...)...)
	t.Logf("ebb submit:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	byNode := workersByNode(y.amLog(y.appID(out)))
	t.Logf("workers by node: %v", byNode)
	if len(byNode) != 3 {
		t.Errorf("GPU workers on %d nodes, want all 3 (6 tasks want 6 workers, each node has one GPU)", len(byNode))
	}
	for node, ws := range byNode {
		if len(ws) > 1 {
			t.Errorf("node %s ran %d GPU workers with one GPU: %v", node, len(ws), ws)
		}
	}
}

// More GPUs per worker than any NodeManager has, asked by the group or by
// a vertex: ebb submit refuses the DAG before any application is asked
// for, naming the field, the type and the maximum, instead of waiting
// forever for a container. (The RM's maximum capability follows its
// largest node here; where an admin set a larger yarn.io/gpu
// maximum-allocation, the AM's check against the node reports does:
// noNodeHolds, mostPerContainer.)
func TestYarnGPUMoreThanAnyNodeRefused(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv("EBB_TEST_HADOOP_CONF_DIR", dir)
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct{ group, vertex, field string }{
		{", resources: {yarn.io/gpu: 2}", "", "containerGroup.resources.yarn.io/gpu: 2 (group gpu2)"},
		{"", ", resources: {yarn.io/gpu: 2}", "vertices[0].resources.yarn.io/gpu: 2 (vertex v)"},
	} {
		spec := y.writeDAG(`
name: yarn-gpu-2
containerGroup: {name: gpu2, workerMemoryMB: 512` + tc.group + `}
vertices:
  - {name: v, command: "true", parallelism: 1, memoryMB: 512` + tc.vertex + `}
`)
		out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
		t.Logf("ebb submit:\n%s", out)
		if err == nil || strings.Contains(out, "submitted application") || !strings.Contains(out, tc.field) || !strings.Contains(out, "(yarn.io/gpu: 1)") {
			t.Errorf("want the DAG refused at submit naming %s and the maximum (yarn.io/gpu: 1); err %v", tc.field, err)
		}
	}
}

// takeGPU takes the last NodeManager's GPU away while the test runs (as
// rmadmin -updateNodeResource does; the minicluster's NodeManagers share
// one configuration, so none lacks one otherwise) and gives it back at
// cleanup. It returns the node.
func takeGPU(t *testing.T, y *yarnTest) string {
	t.Helper()
	ids := testcluster.NodeIDs(t)
	node := ids[len(ids)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodes, err := y.rm.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mb int64
	var vcores int32
	for _, n := range nodes {
		if n.Node == node {
			mb, vcores = n.MemoryMB, n.VCores
		}
	}
	h, p, _ := net.SplitHostPort(node)
	port, _ := strconv.Atoi(p)
	admin := yarnrpc.NewAdminClient(testcluster.EnvValue(t, "RM_ADMIN_ADDRESS"), yarnclient.User())
	if err := admin.UpdateNodeResource(ctx, h, int32(port), mb, vcores, map[string]int64{"yarn.io/gpu": 0}); err != nil {
		t.Fatalf("taking %s's GPU: %v", node, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin.UpdateNodeResource(ctx, h, int32(port), mb, vcores, map[string]int64{"yarn.io/gpu": 1}); err != nil {
			t.Errorf("giving %s its GPU back: %v", node, err)
		}
		_ = admin.Close()
	})
	return node
}

// Issue 23, item 5: a vertex asking yarn.io/gpu: 1, in a group that names
// no GPU, runs only on the NodeManagers that have one: its group's workers
// carry the vertex's GPU in their asks, one per node with a GPU (memory
// would fit several), none on the node without; the DAG succeeds.
func TestYarnGPUVertexOnlyOnNodesWithOne(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv("EBB_TEST_HADOOP_CONF_DIR", dir)
	y := newYarnTest(t)
	noGPU := takeGPU(t, y)
	spec := y.writeDAG(`
name: yarn-gpu-vertex
containerGroup: {name: gv, workerMemoryMB: 512}
vertices:
  - {name: prep, command: [ebb, task, burn, --memory-mb, "8", --seconds, "1"], parallelism: 2, memoryMB: 512}
  - {name: train, command: [ebb, task, burn, --memory-mb, "8", --seconds, "3"], parallelism: 4, memoryMB: 512, resources: {yarn.io/gpu: 1}}
edges: [{from: prep, to: train, type: scatter-gather}]
`)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--set", "ebb.packing.scheme=packed"}, amSets...)...)
	t.Logf("ebb submit:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	byNode := workersByNode(y.amLog(y.appID(out)))
	t.Logf("workers by node: %v (no GPU: %s)", byNode, noGPU)
	if len(byNode) == 0 {
		t.Fatal("no worker registered")
	}
	for node, ws := range byNode {
		switch {
		case node == noGPU:
			t.Errorf("workers %v on %s, which has no GPU", ws, node)
		case len(ws) > 1:
			t.Errorf("node %s ran %d GPU workers with one GPU: %v", node, len(ws), ws)
		}
	}
}
