package main

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// testLabel is the node label the GPU cluster's queue may use (see
// envGPUConfDir's comment); labelOneNode gives it to one NodeManager.
const testLabel = "labelled"

// labelOneNode adds testLabel to the cluster (exclusive: only asks naming
// it go there) and gives it to the first NodeManager, as `yarn rmadmin
// -addToClusterNodeLabels` and `-replaceLabelsOnNode` do; the node leaves
// the partition at cleanup, for the cluster's other tests, which want all
// three nodes. It returns the node (host:port).
func labelOneNode(t *testing.T) string {
	t.Helper()
	node := testcluster.NodeIDs(t)[0]
	h, p, err := net.SplitHostPort(node)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(p)
	admin := yarnrpc.NewAdminClient(testcluster.EnvValue(t, "RM_ADMIN_ADDRESS"), yarnclient.User())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := admin.AddToClusterNodeLabels(ctx, testLabel); err != nil {
		t.Fatalf("adding node label %s: %v", testLabel, err)
	}
	if err := admin.ReplaceLabelsOnNode(ctx, h, int32(port), testLabel); err != nil {
		t.Fatalf("labelling %s: %v", node, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin.ReplaceLabelsOnNode(ctx, h, int32(port)); err != nil {
			t.Errorf("taking %s out of partition %s: %v", node, testLabel, err)
		}
		_ = admin.Close()
	})
	return node
}

// Issue 23, item 4: an unknown node label is refused at submit, naming
// where it was given, the label and the labels the cluster has, before
// any application is asked for: the AM's (ebb.am.node.label.expression)
// and a DAG group's (containerGroup.nodeLabel).
func TestYarnUnknownNodeLabelRefusedAtSubmit(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv(testcluster.EnvConfDir, dir)
	y := newYarnTest(t)
	labelOneNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	plain := y.writeDAG("name: plain\ncontainerGroup: {name: p, workerMemoryMB: 512}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 512}]\n")
	labelled := y.writeDAG("name: nolabel\ncontainerGroup: {name: p, workerMemoryMB: 512, nodeLabel: nosuch}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 512}]\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"submit", plain, "--set", "ebb.am.node.label.expression=nosuch"}, []string{"ebb.am.node.label.expression", `"nosuch"`, testLabel}},
		{[]string{"submit", labelled}, []string{"containerGroup.nodeLabel", `"nosuch"`, testLabel}},
	} {
		out, err := y.ebb(ctx, append(tc.args, amSets...)...)
		t.Logf("ebb %s:\n%s", strings.Join(tc.args, " "), out)
		if err == nil || strings.Contains(out, "submitted application") {
			t.Errorf("ebb %v: submitted (err %v); want it refused", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("ebb %v: the refusal does not name %s", tc.args, w)
			}
		}
	}
}

// Issue 23, item 4, on YARN: with one NodeManager in partition testLabel,
// a session's AM (no label) runs outside it; a DAG whose group names the
// label runs all its workers on that node, with the packing allocator on
// (its node-level asks would pend outside the partition: labelled groups
// ask at ANY only), and succeeds; a DAG naming a label the cluster lacks
// is refused by the session at submit; a later unlabelled DAG runs
// outside the partition.
func TestYarnNodeLabelWorkersInPartition(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv(testcluster.EnvConfDir, dir)
	y := newYarnTest(t)
	node := labelOneNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id := y.startPackedSession(ctx, "labels")
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()

	unknown := y.writeDAG("name: nolabel\ncontainerGroup: {name: x, workerMemoryMB: 512, nodeLabel: nosuch}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 512}]\n")
	out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), unknown)
	t.Logf("dag submit (unknown label):\n%s", out)
	if err == nil || !strings.Contains(out, "containerGroup.nodeLabel") || !strings.Contains(out, testLabel) {
		t.Errorf("dag submit of a group labelled nosuch: err %v; want it refused naming containerGroup.nodeLabel and the cluster's %s", err, testLabel)
	}

	spec := y.writeDAG(`
name: labelled
containerGroup: {name: lab, workerMemoryMB: 512, nodeLabel: ` + testLabel + `}
vertices:
  - {name: map, command: [ebb, task, burn, --memory-mb, "8", --seconds, "3"], parallelism: 8, memoryMB: 512}
  - {name: reduce, command: [ebb, task, burn, --memory-mb, "8", --seconds, "1"], parallelism: 2, memoryMB: 512}
edges: [{from: map, to: reduce, type: scatter-gather}]
`)
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", filepath.Join(t.TempDir(), "out"), spec)
	t.Logf("dag submit:\n%s", out)
	if err != nil {
		t.Fatalf("the labelled DAG: %v", err)
	}
	byNode := workersByNode(y.amLog(id))
	t.Logf("workers by node: %v (labelled: %s)", byNode, node)
	if len(byNode) == 0 {
		t.Fatal("no worker registered")
	}
	for n, ws := range byNode {
		if n != node {
			t.Errorf("workers %v on %s, outside partition %s (only %s is in it)", ws, n, testLabel, node)
		}
	}
	amNode := y.amNode(id)
	t.Logf("the AM ran on %s", amNode)
	if amNode == "" || amNode == node {
		t.Errorf("the AM ran on %q: want a node outside partition %s (%s)", amNode, testLabel, node)
	}

	// Then a DAG of an unlabelled group in the same session, while the
	// labelled workers still idle on the labelled node: to the packer
	// that node is the medium one, the first choice, but an ask of the
	// default partition there would pend forever, so it is never named.
	plain := y.writeDAG(`
name: plain
containerGroup: {name: plain, workerMemoryMB: 512}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "8", --seconds, "2"], parallelism: 4, memoryMB: 512}
`)
	pctx, pcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer pcancel()
	out, err = y.ebb(pctx, "dag", "submit", "--app", id.String(), "--wait", "--output", filepath.Join(t.TempDir(), "out"), plain)
	t.Logf("dag submit (unlabelled group):\n%s", out)
	if err != nil {
		t.Fatalf("the unlabelled DAG after the labelled one: %v", err)
	}
	after := workersByNode(y.amLog(id))
	t.Logf("workers by node after both DAGs: %v", after)
	if len(after[node]) != len(byNode[node]) {
		t.Errorf("workers of the unlabelled group on the labelled node %s: %v", node, after[node])
	}
}

// amNode is the NodeManager (host:port) the application's AM container
// (..._000001) ran on: the one whose log dir holds it ("" if none does).
func (y *yarnTest) amNode(id yarn.AppID) string {
	ids, dirs := testcluster.NodeIDs(y.t), testcluster.NMLogDirs(y.t)
	for d, cs := range y.containerLogs(id) {
		if i := slices.Index(dirs, d); i >= 0 && slices.ContainsFunc(cs, func(c string) bool { return strings.HasSuffix(c, "_000001") }) {
			return ids[i]
		}
	}
	return ""
}

// Issue 23, item 4: ebb.am.node.label.expression puts the AM's container
// in the labelled partition, and only the AM's: the DAG's unlabelled
// group runs its workers outside it (the label is on the AM's own
// request, not the application's default).
func TestYarnNodeLabelAM(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envGPUConfDir, "see envGPUConfDir's comment in cmd/ebb/yarn_gpu_test.go")
	t.Setenv(testcluster.EnvConfDir, dir)
	y := newYarnTest(t)
	node := labelOneNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	spec := y.writeDAG(`
name: am-labelled
containerGroup: {name: plain, workerMemoryMB: 512}
vertices:
  - {name: v, command: [ebb, task, burn, --memory-mb, "8", --seconds, "2"], parallelism: 4, memoryMB: 512}
`)
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--set", "ebb.am.node.label.expression=" + testLabel}, amSets...)...)
	t.Logf("ebb submit:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	amNode, byNode := y.amNode(id), workersByNode(y.amLog(id))
	t.Logf("the AM ran on %s (labelled: %s); workers by node: %v", amNode, node, byNode)
	if amNode != node {
		t.Errorf("the AM ran on %q, want the labelled node %s", amNode, node)
	}
	if len(byNode) == 0 {
		t.Fatal("no worker registered")
	}
	if ws, ok := byNode[node]; ok {
		t.Errorf("unlabelled workers %v on the labelled node %s", ws, node)
	}
}
