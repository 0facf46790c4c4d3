package core

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// An ask that nobody answers: two 4096 MB nodes, two 1024 MB workers
// wanted, both packed onto one node. Something the AM does not see (another
// application's containers since the node report) fills that node, so no
// worker comes. At ebb.packing.ask.timeout.ms (the default, 10 s) the asks
// are given up and asked for on the other node, without the total changing;
// the full node is named again once as long has passed.
func TestUnansweredAskGoesElsewhere(t *testing.T) {
	timeout := 10 * time.Second // conf's default for ebb.packing.ask.timeout.ms
	f := twoTasksOnTwoNodes(t, timeout)
	if f.wanted["g"] != 2 || len(f.prefer) != 2 || f.prefer[0] != f.prefer[1] {
		t.Fatalf("wanted %d on %v, want 2 on one node", f.wanted["g"], f.prefer)
	}
	full := f.prefer[0]
	other := map[string]string{"n1": "n2", "n2": "n1"}[full]
	f.tick(timeout - time.Second)
	if f.prefer[0] != full {
		t.Fatalf("asks moved to %v before the timeout", f.prefer)
	}
	f.tick(time.Second)
	if f.wanted["g"] != 2 || !slices.Equal(f.prefer, []string{other, other}) {
		t.Fatalf("after %s without a worker: wanted %d on %v, want 2 on %s", timeout, f.wanted["g"], f.prefer, other)
	}
	if !slices.ContainsFunc(f.logs, func(l string) bool { return strings.Contains(l, "no worker came for its 2 asks on node "+full) }) {
		t.Errorf("no log line says why the asks moved: %q", f.logs)
	}
	// One arrives there; the other ask still waits on other. At the next
	// timeout the full node's mark has run out: the ask may name it again.
	if err := f.c.WorkerRegistered(f.now, WorkerInfo{ID: "w1", Group: "g", Node: other, NodeMB: 4096, MemoryMB: 1024, Address: "w1:1"}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	f.tick(timeout)
	if len(f.prefer) == 0 || f.prefer[0] != full {
		t.Fatalf("after the mark on %s ran out and the ask on %s waited as long: prefer %v, want %s first", full, other, f.prefer, full)
	}
}

// With the timeout at 0 an ask waits for ever, as before the key.
func TestAskTimeoutZeroWaits(t *testing.T) {
	f := twoTasksOnTwoNodes(t, 0)
	first := slices.Clone(f.prefer)
	f.tick(time.Hour)
	if !slices.Equal(f.prefer, first) {
		t.Fatalf("prefer %v after an hour, want %v", f.prefer, first)
	}
}

// twoTasksOnTwoNodes: two 4096 MB nodes, packing (every node medium up to
// full, from one node on), and a DAG of two 1024 MB tasks submitted.
func twoTasksOnTwoNodes(t *testing.T, askTimeout time.Duration) *fakeWorld {
	f := packedFake(t, CoreOptions{IdleTimeout: time.Hour, AskTimeout: askTimeout}, ClusterNode{ID: "n1", CapacityMB: 4096}, ClusterNode{ID: "n2", CapacityMB: 4096})
	f.submit(`
name: two
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 1024}]
`)
	return f
}

// packedFake is a fake world whose Core packs (packed, 100%, from one node
// on) over the cluster's nodes.
func packedFake(t *testing.T, opts CoreOptions, nodes ...ClusterNode) *fakeWorld {
	t.Helper()
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100, MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	opts.Allocator = alloc
	f := newFake(t, opts)
	f.c.SetClusterNodes(f.now, nodes)
	f.drain()
	return f
}
