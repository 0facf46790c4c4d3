package core

import (
	"strings"
	"testing"
)

// A producer whose output its consumer can never read (a command that
// exits 0 without writing its partitions) is re-run, but each loss counts
// against the producer, as MapReduce counts a map whose output reducers
// cannot fetch: with the default of 3 attempts the DAG fails after the
// third loss, naming the vertex, instead of re-running for ever.
func TestFetchFailuresCountAgainstTheProducer(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(`
name: lossy
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: src, command: "true", parallelism: 1, memoryMB: 256}
  - {name: dst, command: "true", parallelism: 1, memoryMB: 256}
edges:
  - {from: src, to: dst, type: scatter-gather}
`)
	f.addWorker("w1", "g", "n1", 1024)
	srcRuns := 0
	for round := 0; round < 10 && len(f.ended) == 0; round++ {
		// One attempt runs at a time here: src, then dst.
		ids := sortedKeys(f.running)
		if len(ids) != 1 {
			t.Fatalf("round %d: %d attempts running, want 1", round, len(ids))
		}
		a := f.c.attempt[ids[0]]
		if a.task.vertex.spec.Name == "src" {
			srcRuns++
			f.finishAll()
			continue
		}
		src := f.c.dags[id].vertices[0].tasks[0].output.id
		delete(f.running, ids[0])
		f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: ids[0], Result: AttemptFetchFailed, FetchFailedAttempt: src,
			Diagnostics: "no such partition"})
		f.drain()
	}
	if len(f.ended) != 1 || f.ended[0].State != DAGFailed {
		t.Fatalf("ended %+v, want the DAG failed", f.ended)
	}
	if srcRuns != 3 {
		t.Errorf("src ran %d times, want 3 (the first run and two re-runs)", srcRuns)
	}
	if d := f.ended[0].Diagnostics; !strings.Contains(d, "vertex src task 0: its output could not be read 3 times") {
		t.Errorf("diagnostics %q do not name the producer and the count", d)
	}
}
