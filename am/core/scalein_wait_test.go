package core

import (
	"slices"
	"testing"
)

// Scale-in with mr3.auto.scale.in.wait.dag.finished=true (the default), as
// MR3 documents it: the drained node's workers keep running new attempts
// of the DAGs active when the scale-in began, take none of a DAG submitted
// after it, and stop when those DAGs end.
//
// Group g: 1024 MB workers w1 (node n1) and w2 (n2); DAG a has 8 tasks of
// 512 MB, so 4 run (2 per worker) and 4 queue. n1 drains; then DAG b (2
// tasks) arrives. Finishing w1's pair gives w1 two more of a's (fifo: a's
// queue is first); finishing w2's pair gives w2 a's last two; finishing
// w1's pair again leaves b queued, and w1 must not take it; finishing w2's
// pair gives w2 b's two. a has then ended: w1 is stopped.
func TestScaleInWaitsForActiveDAGsAndServesThemOnly(t *testing.T) {
	f := newFake(t, CoreOptions{})
	a := f.submit(`
name: a
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 8, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 1024)
	f.addWorker("w2", "g", "n2", 1024)
	f.c.DrainNode(f.now, "n1", "test scale-in", true)
	f.drain()
	b := f.submit(`
name: b
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 512}]
`)
	ranOn := map[string][]string{} // worker -> DAG ids of the attempts it ran
	finishOn := func(worker string) {
		t.Helper()
		var ids []string
		for _, id := range sortedKeys(f.running) {
			if f.running[id] == worker {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			t.Fatalf("nothing runs on %s", worker)
		}
		for _, id := range ids {
			ranOn[worker] = append(ranOn[worker], f.c.attempt[id].task.vertex.dag.id)
			delete(f.running, id)
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
		}
		f.drain()
	}
	finishOn("w1") // a's first pair on w1; w1 takes two more of a's
	finishOn("w2") // a's first pair on w2; w2 takes a's last two
	finishOn("w1") // a's second pair on w1: b is queued, w1 must not take it
	if slices.Contains(f.stopped, "w1") {
		t.Fatal("w1 stopped while a, which its scale-in waits for, still runs")
	}
	finishOn("w2") // a's last two: a ends; w2 takes b's two
	finishOn("w2") // b's two
	want := []string{a, a, a, a}
	if !slices.Equal(ranOn["w1"], want) {
		t.Errorf("w1 ran attempts of %v, want %v: four of a (two after the scale-in), none of b", ranOn["w1"], want)
	}
	if n := len(slices.DeleteFunc(slices.Clone(ranOn["w2"]), func(id string) bool { return id != b })); n != 2 {
		t.Errorf("w2 ran %d attempts of b, want 2", n)
	}
	if !slices.Contains(f.stopped, "w1") {
		t.Errorf("w1 was not stopped after a ended (stopped: %v)", f.stopped)
	}
	if slices.Contains(f.stopped, "w2") {
		t.Errorf("w2, on a node not drained, was stopped")
	}
}
