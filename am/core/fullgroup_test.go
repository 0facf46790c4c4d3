package core

import (
	"fmt"
	"testing"

	"github.com/ebb-am/ebb/packing"
)

// countingAllocator is uniform, counting its Choose calls.
type countingAllocator struct {
	packing.Allocator
	calls int
}

func (a *countingAllocator) Choose(nodes []packing.Node, req packing.Request) (int, bool) {
	a.calls++
	return a.Allocator.Choose(nodes, req)
}

// A full group holds the pass's picks without asking the allocator for
// each: a request larger than every node's room skips the walk over every
// node (mayFit). Ten 512 MB workers, one attempt each, 100 attempts of
// one DAG queued: a finished attempt frees one slot, so its pass makes one
// placement (one Choose) and then holds maxFailsPerDAG (4) picks that fit
// nowhere, with no Choose; every pick asked before (5 calls).
func TestFullGroupAsksAllocatorOnce(t *testing.T) {
	alloc := &countingAllocator{Allocator: must(packing.New("uniform", packing.Options{}))}
	f := newFake(t, CoreOptions{Allocator: alloc})
	f.submit(`
name: many
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 100, memoryMB: 512}]
`)
	for i := 0; i < 10; i++ {
		f.addWorker("w"+string(rune('a'+i)), "g", "n"+string(rune('a'+i)), 512)
	}
	if len(f.running) != 10 {
		t.Fatalf("%d attempts running, want 10", len(f.running))
	}
	id := sortedKeys(f.running)[0]
	delete(f.running, id)
	alloc.calls = 0
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
	f.drain()
	if len(f.running) != 10 {
		t.Fatalf("%d attempts running after one finished, want 10", len(f.running))
	}
	if alloc.calls != 1 {
		t.Fatalf("the pass asked the allocator %d times, want 1 (the placement)", alloc.calls)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// NoInputLists (the sim's world fetches nothing) leaves a consumer's input
// list empty and the rest of its spec as it was.
func TestNoInputListsLeavesInputsOut(t *testing.T) {
	specs := map[bool]AttemptSpec{}
	for _, omit := range []bool{false, true} {
		f := newFake(t, CoreOptions{NoInputLists: omit})
		f.submit(diamond)
		f.addWorker("w1", "g", "n1", 4096)
		f.finishAll() // src; left and right start
		for id := range f.running {
			if s := f.c.attemptSpec(f.c.attempt[id]); s.Vertex == "left" && s.Task == 1 {
				specs[omit] = s
			}
		}
	}
	with, without := specs[false], specs[true]
	if len(with.Inputs) != 3 || len(without.Inputs) != 0 {
		t.Fatalf("left[1] lists %d inputs, %d with NoInputLists; want 3 and 0", len(with.Inputs), len(without.Inputs))
	}
	with.Inputs = nil
	if fmt.Sprint(with) != fmt.Sprint(without) {
		t.Fatalf("apart from the inputs the specs differ:\n%+v\n%+v", with, without)
	}
}
