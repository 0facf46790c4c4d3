package core

import (
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

func oneTask(name, group string) string {
	return `
name: ` + name + `
containerGroup: {name: ` + group + `, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 512}]
`
}

// fifo: when a DAG of group a ends and one of group b (same kind) is
// admitted, a's free worker moves to b; b asks the cluster for nothing.
func TestFIFORecyclingMovesFreeWorker(t *testing.T) {
	f := newFake(t, CoreOptions{Recycle: scheduler.RecycleFIFO, MaxConcurrentDAGs: 1})
	f.submit(oneTask("d1", "a"))
	f.submit(oneTask("d2", "b"))
	f.addWorker("w1", "a", "n1", 1024)
	moved := 0
	f.finishAll() // d1 ends; d2 is admitted and takes w1
	for _, l := range f.logs {
		if strings.Contains(l, "worker w1 recycled from group a to group b") {
			moved++
		}
	}
	if moved != 1 {
		t.Fatalf("w1 not recycled; logs: %v", f.logs)
	}
	if f.wanted["b"] > 1 {
		t.Fatalf("group b asked the cluster for %d workers; the recycled one should do", f.wanted["b"])
	}
	if n := f.finishAll(); n != 2 {
		t.Fatalf("d2 ran %d attempts on the recycled worker, want 2", n)
	}
	if len(f.ended) != 2 {
		t.Fatalf("%d DAGs ended", len(f.ended))
	}
}

// none: the same sequence leaves w1 in group a and b asks for its own.
func TestNoRecyclingAsksForNewWorker(t *testing.T) {
	f := newFake(t, CoreOptions{MaxConcurrentDAGs: 1})
	f.submit(oneTask("d1", "a"))
	f.submit(oneTask("d2", "b"))
	f.addWorker("w1", "a", "n1", 1024)
	f.finishAll()
	if f.wanted["b"] != 1 {
		t.Fatalf("group b wants %d workers, want 1 new one", f.wanted["b"])
	}
}

// fair: a busy group above its share gives a worker, after its attempts end.
func TestFairRecyclingWaitsForBusyWorkers(t *testing.T) {
	f := newFake(t, CoreOptions{Recycle: scheduler.RecycleFair, RecycleInterval: time.Second})
	f.submit(`
name: big
containerGroup: {name: a, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 1024}]
`)
	f.addWorker("w1", "a", "n1", 1024)
	f.addWorker("w2", "a", "n1", 1024)
	f.submit(oneTask("small", "b"))
	// Kind: a has 2 workers (both busy, 2 attempts still queued), b has 0
	// and wants 1. Fair shares of 2 workers between two groups that want
	// them: 1 each, so one of a's workers is marked for b.
	f.tick(time.Second)
	if f.wanted["b"] != 0 {
		t.Fatalf("b asked the cluster for %d workers while one is coming; logs %v", f.wanted["b"], f.logs)
	}
	f.finishAll() // the marked worker finishes its attempt and moves to b
	var moved bool
	for _, l := range f.logs {
		moved = moved || strings.Contains(l, "recycled from group a to group b")
	}
	if !moved {
		t.Fatalf("no worker moved; logs %v", f.logs)
	}
}
