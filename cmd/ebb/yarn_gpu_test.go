package main

import (
	"context"
	"github.com/ebb-am/ebb/internal/testcluster"
	"strings"
	"testing"
	"time"
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

// More GPUs per worker than any NodeManager has: the DAG fails at once,
// saying so, instead of waiting forever for a container. (Here the RM's
// maximum capability follows its largest node, so the maximum says it;
// where an admin set a larger yarn.io/gpu maximum-allocation, the node
// reports do: noNodeHolds.)
func TestYarnGPUMoreThanAnyNodeRefused(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv("EBB_TEST_HADOOP_CONF_DIR", dir)
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: yarn-gpu-2
containerGroup: {name: gpu2, workerMemoryMB: 512, resources: {yarn.io/gpu: 2}}
vertices:
  - {name: v, command: "true", parallelism: 1, memoryMB: 512}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	t.Logf("ebb submit:\n%s", out)
	if err == nil || !strings.Contains(out, "FAILED") || !strings.Contains(out, "resource type yarn.io/gpu: workers need 2") {
		t.Fatalf("want the DAG refused for two GPUs on nodes of one; err %v", err)
	}
}
