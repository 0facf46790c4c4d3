package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/scheduler"
)

// fourMaps is one vertex of four 256 MB tasks in a group of 1024 MB
// workers: task 3 is the one the tests kill for memory.
const fourMaps = `
name: mem
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: map, command: "true", parallelism: 4, memoryMB: 256}
`

// killForMemory reports the running attempt of map[3] killed by its
// worker for using usedMB, and returns its id.
func (f *fakeWorld) killForMemory(dagID string, usedMB int64) string {
	f.t.Helper()
	id := f.runningOf(dagID, "map", 3)
	delete(f.running, id)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptFailed, ExitCode: -1, MemoryUsedMB: usedMB,
		Diagnostics: fmt.Sprintf("exceeded memory: used %d MB of ...", usedMB)})
	f.drain()
	return id
}

// runningOf is the id of the running attempt of vertex[task].
func (f *fakeWorld) runningOf(dagID, vertex string, task int) string {
	f.t.Helper()
	for _, id := range sortedKeys(f.running) {
		if r, ok := f.c.Attempt(id); ok && r.DAG == dagID && r.Vertex == vertex && r.Task == task {
			return id
		}
	}
	f.t.Fatalf("no running attempt of %s[%d]; running: %v", vertex, task, sortedKeys(f.running))
	return ""
}

func (f *fakeWorld) memoryOf(id string) int64 {
	f.t.Helper()
	r, ok := f.c.Attempt(id)
	if !ok {
		f.t.Fatalf("no record of attempt %s", id)
	}
	return r.MemoryMB
}

// A 256 MB task killed for memory in a group of 1024 MB workers is retried
// with 512 MB, then 1024 MB (the factor 2), and the DAG's diagnostics and
// each attempt's record say so.
func TestMemoryRetryDoubles(t *testing.T) {
	f := newFake(t, CoreOptions{MaxFailedAttempts: 4})
	id := f.submit(fourMaps)
	f.addWorker("w1", "g", "n1", 1024)
	f.addWorker("w2", "g", "n2", 1024)
	first := f.runningOf(id, "map", 3)
	if got := f.memoryOf(first); got != 256 {
		t.Fatalf("first attempt asks %d MB, want the vertex's 256", got)
	}
	f.killForMemory(id, 346)
	const note1 = "attempt 0 of map[3] used 346 MB of 256 MB; retrying with 512 MB"
	if r, _ := f.c.Attempt(first); r.Diagnostics != note1 || r.State != "FAILED" {
		t.Fatalf("attempt record %s %q, want FAILED %q", r.State, r.Diagnostics, note1)
	}
	second := f.runningOf(id, "map", 3)
	if got := f.memoryOf(second); got != 512 {
		t.Fatalf("second attempt asks %d MB, want 256 × 2 = 512", got)
	}
	f.killForMemory(id, 600)
	const note2 = "attempt 1 of map[3] used 600 MB of 512 MB; retrying with 1024 MB"
	third := f.runningOf(id, "map", 3)
	if got := f.memoryOf(third); got != 1024 {
		t.Fatalf("third attempt asks %d MB, want 512 × 2 = 1024", got)
	}
	// The other tasks keep their own 256 MB.
	if got := f.memoryOf(f.runningOf(id, "map", 0)); got != 256 {
		t.Fatalf("map[0] asks %d MB, want 256", got)
	}
	st, _ := f.c.DAG(id)
	if st.Diagnostics != note1+"\n"+note2 {
		t.Fatalf("DAG diagnostics %q, want the two notes", st.Diagnostics)
	}
	// The retry succeeds, and the DAG keeps the notes.
	f.finishAll()
	st, _ = f.c.DAG(id)
	if st.State != DAGSucceeded || st.Diagnostics != note1+"\n"+note2 {
		t.Fatalf("DAG %s %q, want SUCCEEDED with the notes", st.State, st.Diagnostics)
	}
}

// At the cap (the group's worker size) the retry asks the same again and
// the note says it will likely fail the same way; when no attempt is
// left the DAG fails with the figures.
func TestMemoryRetryAtCap(t *testing.T) {
	f := newFake(t, CoreOptions{MaxFailedAttempts: 4})
	id := f.submit(fourMaps)
	f.addWorker("w1", "g", "n1", 1024)
	f.addWorker("w2", "g", "n2", 1024)
	f.killForMemory(id, 300) // → 512
	f.killForMemory(id, 700) // → 1024
	third := f.killForMemory(id, 1200)
	const note3 = "attempt 2 of map[3] used 1200 MB of 1024 MB; retrying with 1024 MB again, the most it may ask (the group's workers offer 1024 MB): it will likely fail the same way"
	if r, _ := f.c.Attempt(third); r.Diagnostics != note3 {
		t.Fatalf("attempt record %q, want %q", r.Diagnostics, note3)
	}
	if got := f.memoryOf(f.runningOf(id, "map", 3)); got != 1024 {
		t.Fatalf("fourth attempt asks %d MB, want the cap 1024", got)
	}
	f.killForMemory(id, 1250)
	// The last failure: no retry to announce, only the figures.
	st, _ := f.c.DAG(id)
	lines := strings.Split(st.Diagnostics, "\n")
	last := lines[len(lines)-1]
	if st.State != DAGFailed || len(lines) != 4 || lines[2] != note3 ||
		!strings.HasPrefix(last, "vertex map task 3 failed 4 times; last attempt ") ||
		!strings.HasSuffix(last, "_map_000003_3: attempt 3 of map[3] used 1250 MB of 1024 MB") {
		t.Fatalf("DAG %s %q, want FAILED: three notes, then the last attempt's figures", st.State, st.Diagnostics)
	}
}

// ebb.task.memory.retry.max.mb caps below the worker size, and the note
// names the key; factor 1.5 rounds up to whole MB.
func TestMemoryRetryKeyCapAndFactor(t *testing.T) {
	f := newFake(t, CoreOptions{MaxFailedAttempts: 5, MemoryRetry: scheduler.MemoryRetry{Factor: 1.5, MaxMB: 600}})
	id := f.submit(strings.Replace(fourMaps, "memoryMB: 256", "memoryMB: 255", 1))
	f.addWorker("w1", "g", "n1", 1024)
	f.addWorker("w2", "g", "n2", 1024)
	// 255 × 1.5 = 382.5 → 383; 383 × 1.5 = 574.5 → 575; 575 × 1.5 = 862.5 → capped at 600.
	for i, want := range []int64{383, 575, 600, 600} {
		f.killForMemory(id, 2000)
		if got := f.memoryOf(f.runningOf(id, "map", 3)); got != want {
			t.Fatalf("retry %d asks %d MB, want %d", i+1, got, want)
		}
	}
	st, _ := f.c.DAG(id)
	for _, want := range []string{
		"attempt 0 of map[3] used 2000 MB of 255 MB; retrying with 383 MB",
		"attempt 2 of map[3] used 2000 MB of 575 MB; retrying with 600 MB, the most it may ask (ebb.task.memory.retry.max.mb = 600)",
		"attempt 3 of map[3] used 2000 MB of 600 MB; retrying with 600 MB again, the most it may ask (ebb.task.memory.retry.max.mb = 600): it will likely fail the same way",
	} {
		if !strings.Contains(st.Diagnostics, want) {
			t.Errorf("diagnostics %q\nwant them to contain %q", st.Diagnostics, want)
		}
	}
}

// Any other failure is retried with the same memory.
func TestOtherFailureKeepsMemory(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(fourMaps)
	f.addWorker("w1", "g", "n1", 1024)
	a := f.runningOf(id, "map", 3)
	delete(f.running, a)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a, Result: AttemptFailed, ExitCode: 1, Diagnostics: "boom"})
	f.drain()
	if got := f.memoryOf(f.runningOf(id, "map", 3)); got != 256 {
		t.Fatalf("retry asks %d MB, want 256", got)
	}
	if st, _ := f.c.DAG(id); st.Diagnostics != "" {
		t.Fatalf("DAG diagnostics %q, want none", st.Diagnostics)
	}
}
