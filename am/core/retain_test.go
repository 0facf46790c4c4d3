package core

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

const tinyDAG = `
name: tiny%d
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 256}]
`

// runTiny submits n one-task DAGs and finishes each, one minute apart
// (the injected now), and returns their ids.
func runTiny(f *fakeWorld, n int) []string {
	var ids []string
	for i := range n {
		ids = append(ids, f.submit(fmt.Sprintf(tinyDAG, i)))
		if len(f.running) == 0 { // the first DAG, or the last worker was idle too long
			f.addWorker(fmt.Sprintf("w%d", i), "g", "n1", 1024)
		}
		f.finishAll()
		f.tick(time.Minute)
	}
	return ids
}

func TestFinishedDAGsBeyondTheRetentionAreCompacted(t *testing.T) {
	f := newFake(t, CoreOptions{RetainDAGs: 3, RetainSummaries: 5})
	ids := runTiny(f, 7)
	// Two more submitted, one of them running: never compacted.
	running := f.submit(fmt.Sprintf(tinyDAG, 100))
	queued := f.submit(`
name: big
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 8, memoryMB: 1024}]
`)
	f.tick(time.Hour)
	// 7 finished: the newest 3 whole (4..6), 2..3 compacted, and the
	// summaries bound (5 finished listed) forgets 0 and 1.
	for i, id := range ids {
		st, ok := f.c.DAG(id)
		switch {
		case i < 2:
			if ok {
				t.Errorf("DAG %d %s still known (%+v); the summary bound is 5", i, id, st)
			}
		case i < 4:
			if !ok || !st.Compacted || st.Vertices != nil || st.State != DAGSucceeded || st.TotalTasks != 1 || st.Succeeded != 1 || st.Name != fmt.Sprintf("tiny%d", i) {
				t.Errorf("DAG %d %s: %+v, %v; want a SUCCEEDED summary of 1 task", i, id, st, ok)
			}
			if _, whole := f.c.dags[id]; whole {
				t.Errorf("DAG %d %s still whole in the Core", i, id)
			}
		default:
			if !ok || st.Compacted || len(st.Vertices) != 1 {
				t.Errorf("DAG %d %s: %+v; want it whole", i, id, st)
			}
		}
	}
	for _, id := range []string{running, queued} {
		st, ok := f.c.DAG(id)
		if !ok || st.Compacted || st.State.Done() || len(st.Vertices) != 1 {
			t.Errorf("unfinished DAG %s: %+v, %v; want it whole", id, st, ok)
		}
	}
	if n := len(f.c.DAGs()); n != 7 {
		t.Errorf("DAGs lists %d, want 5 finished + 2 unfinished", n)
	}
}

func TestFinishedDAGsOlderThanTheRetentionAreCompacted(t *testing.T) {
	f := newFake(t, CoreOptions{RetainDAGs: 100, RetainDAGsFor: 150 * time.Second})
	ids := runTiny(f, 4) // ended at +0, +1, +2, +3 minutes; now is +4
	// At +4 min: those ended 3 and 4 minutes ago are past 150 s.
	for i, id := range ids {
		st, _ := f.c.DAG(id)
		if want := i < 2; st.Compacted != want {
			t.Errorf("DAG %d compacted %v, want %v", i, st.Compacted, want)
		}
	}
}

func TestCompactedDAGAnswersAsASummary(t *testing.T) {
	f := newFake(t, CoreOptions{RetainDAGs: 1})
	ids := runTiny(f, 2)
	old := ids[0]
	// Status, list, view, kill and settle all still answer for it.
	st, ok := f.c.DAG(old)
	if !ok || !st.Compacted || st.State != DAGSucceeded || st.Submit.IsZero() || st.Finish.IsZero() || st.Group != "g" {
		t.Fatalf("status %+v, %v", st, ok)
	}
	if list := f.c.DAGs(); len(list) != 2 || list[0].ID != old || !list[0].Compacted || list[1].Compacted {
		t.Fatalf("list %+v", list)
	}
	if v, ok := f.c.DAGView(old); !ok || !v.Compacted || v.Vertices != nil || v.Attempts != nil {
		t.Fatalf("view %+v, %v", v, ok)
	}
	if err := f.c.KillDAG(f.now, old, ""); err != nil {
		t.Fatalf("kill of a compacted DAG: %v", err)
	}
	if err := f.c.DAGSettled(f.now, old, DAGFailed, "committing failed"); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.c.DAG(old); st.State != DAGFailed || st.Diagnostics != "committing failed" {
		t.Fatalf("after settling: %+v", st)
	}
}

// Past the summary bound each ended DAG forgets the oldest summary at O(1)
// amortised: a copy of the whole list on every end made a 24k-job replay
// (10,000 summaries kept) allocate 5 GB. 20,000 ends past a bound of
// 10,000: the summaries themselves (a few hundred bytes each) and the
// list's occasional regrowth, not 80 KB of pointers per end.
func TestSummaryTrimCopiesNotPerEnd(t *testing.T) {
	const keep = 10000
	var s summaries
	for i := 0; i < keep; i++ {
		s.add(DAGStatus{ID: fmt.Sprint("d", i)})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const ends = 20000
	for i := 0; i < ends; i++ {
		s.add(DAGStatus{ID: fmt.Sprint("e", i)})
		s.trim(keep)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / ends; per > 2048 {
		t.Fatalf("%d bytes allocated per ended DAG, want at most 2048", per)
	}
	if len(s.order) != keep || len(s.byID) != keep || s.order[0].ID != "e10000" {
		t.Fatalf("%d summaries listed, %d by id, the oldest %s; want %d, %d, e10000", len(s.order), len(s.byID), s.order[0].ID, keep, keep)
	}
}
