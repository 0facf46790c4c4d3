package core

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// Issue 23, the ask cap (mr3.am.resourcescheduler.max.requests.per.
// taskscheduler): with 11 workers wanted and the cap at 10, the group asks
// for 10; the 11th is asked for as soon as the first of the 10 arrives,
// under every scaling policy, with no task ending and no clock moving.
func TestAskCapRefilledOnArrival(t *testing.T) {
	as := scheduler.DefaultAutoscaleConfig()
	as.InitialWorkers = 0 // from the queued demand: 11
	for _, tc := range []struct {
		name string
		opts CoreOptions
	}{
		{"on demand", CoreOptions{}},
		{"spark dynamic allocation", CoreOptions{Scaling: ScaleSparkDA, BacklogTimeout: time.Second}},
		{"autoscaler", CoreOptions{Scaling: ScaleAutoscaler, Autoscale: as}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.MaxPendingRequests = 10
			tc.opts.IdleTimeout = time.Hour
			f := newFake(t, tc.opts)
			f.submit(`
name: wide
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 11, memoryMB: 512}]
`)
			for i := 0; i < 5 && f.wanted["g"] < 10; i++ {
				f.tick(time.Second) // spark's ramp needs its backlog timeouts
			}
			if f.wanted["g"] != 10 {
				t.Fatalf("wanted %d, want 10 (11 needed, 10 at a time)", f.wanted["g"])
			}
			for i := 1; i <= 10; i++ {
				f.addWorker(fmt.Sprintf("w%d", i), "g", fmt.Sprintf("n%d", i%3), 512)
				if f.wanted["g"] != 11 {
					t.Fatalf("after %d of the 10 arrived: wanted %d, want 11", i, f.wanted["g"])
				}
			}
		})
	}
}

// Under packing the same refill must name a node with room. Three 2048 MB
// nodes hold four 512 MB workers each; the first 10 asks name them (4, 4
// and 2). The first worker arrives on a node its asks fill; the world
// asks for the Prefer list's first entries (YARN's book: as many as it
// lacks, counting the 9 containers allocated and still starting as held),
// so the 11th's node — the first entry — must have room beside those 9.
// Planned from the registered worker alone, it named the full node, and
// that strict ask waited until a worker there stopped.
func TestAskCapPackedRefillNamesANodeWithRoom(t *testing.T) {
	f := packedFake(t, CoreOptions{MaxPendingRequests: 10, IdleTimeout: time.Hour},
		ClusterNode{ID: "n1", CapacityMB: 2048}, ClusterNode{ID: "n2", CapacityMB: 2048}, ClusterNode{ID: "n3", CapacityMB: 2048})
	f.submit(`
name: wide
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 11, memoryMB: 512}]
`)
	first := slices.Clone(f.prefer)
	if f.wanted["g"] != 10 || len(first) != 10 {
		t.Fatalf("wanted %d on %v, want 10 named nodes", f.wanted["g"], first)
	}
	full := first[0] // the packer fills the first node it names
	if err := f.c.WorkerRegistered(f.now, WorkerInfo{ID: "w1", Group: "g", Node: full, NodeMB: 2048, MemoryMB: 512, Address: "w1:1"}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	if f.wanted["g"] != 11 || len(f.prefer) == 0 {
		t.Fatalf("after one arrived: wanted %d on %v, want 11", f.wanted["g"], f.prefer)
	}
	next := f.prefer[0]
	starting := slices.Clone(first)
	starting = slices.Delete(starting, slices.Index(starting, full), slices.Index(starting, full)+1)
	used := 512 * int64(count(starting, next)+1) // the 9 still starting there, and the 11th
	if next == full {
		used += 512 // w1
	}
	t.Logf("first asks %v; after w1 on %s: prefer %v", first, full, f.prefer)
	if used > 2048 {
		t.Fatalf("the 11th worker is asked for on %s, which the workers still starting fill (%d MB of 2048 with it)", next, used)
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// The same cluster as on YARN (cmd/ebb TestYarnAskCapRefilled): three
// 4096 MB nodes, one holding the AM's own 256 MB container, and 11 workers
// of 1024 MB wanted, 10 asked for at a time. A plan that sees only the
// AM's workers names four on the AM's node, where three fit: the fourth
// ask is for room that is not there (the RM reserves the node for it, and
// that reservation can keep the queue from granting the 11th anywhere).
// With the node report's others' memory counted, no node is asked for more
// than it holds, the first 10 and the refill alike.
func TestPackedAsksCountOthersMemory(t *testing.T) {
	for _, am := range []string{"n1", "n2", "n3"} { // the packer's first choice among them varies
		t.Run("AM on "+am, func(t *testing.T) { packedAsksCountOthersMemory(t, am) })
	}
}

func packedAsksCountOthersMemory(t *testing.T, am string) {
	room := map[string]int64{"n1": 4096, "n2": 4096, "n3": 4096}
	room[am] -= 256
	var nodes []ClusterNode
	for _, id := range []string{"n1", "n2", "n3"} {
		nodes = append(nodes, ClusterNode{ID: id, CapacityMB: 4096, OthersMB: 4096 - room[id]})
	}
	f := packedFake(t, CoreOptions{MaxPendingRequests: 10, IdleTimeout: time.Hour}, nodes...)
	f.submit(`
name: wide
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 11, memoryMB: 1024}]
`)
	check := func(when string, registered map[string]int) {
		t.Helper()
		// The world asks for the newest Prefer list's first entries, as
		// many as it lacks containers.
		n := 0
		for _, k := range registered {
			n += k
		}
		asked := map[string]int{}
		for _, id := range f.prefer[:f.wanted["g"]-n] {
			asked[id]++
		}
		for id, free := range room {
			if mb := 1024 * int64(asked[id]+registered[id]); mb > free {
				t.Fatalf("%s: %d workers asked for and %d registered on %s: %d MB where %d are free (prefer %v)", when, asked[id], registered[id], id, mb, free, f.prefer)
			}
		}
	}
	if f.wanted["g"] != 10 || len(f.prefer) != 10 {
		t.Fatalf("wanted %d on %v, want 10 named nodes", f.wanted["g"], f.prefer)
	}
	check("the first 10 asks", nil)
	first := slices.Clone(f.prefer)
	registered := map[string]int{}
	for i, id := range first {
		if err := f.c.WorkerRegistered(f.now, WorkerInfo{ID: fmt.Sprintf("w%d", i), Group: "g", Node: id, NodeMB: 4096, MemoryMB: 1024, Address: id + ":1"}); err != nil {
			t.Fatal(err)
		}
		f.drain()
		registered[id]++
	}
	if f.wanted["g"] != 11 {
		t.Fatalf("after the 10 arrived: wanted %d on %v, want 11", f.wanted["g"], f.prefer)
	}
	check("the refill", registered)
}
