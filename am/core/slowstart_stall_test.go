package core

import (
	"fmt"
	"testing"
	"time"
)

// stallDAG deadlocks a one-worker group under slow start without the
// stall rule: big maps (384 MB) and small sides (128 MB) both feed the
// reduces (256 MB), which start once one of each has succeeded. Two
// gathering reduces fill the 512 MB worker while maps 1 and 2 are still
// queued, and mr3.container.max.num.workers (MaxWorkers 1) lets the group
// have no other worker.
const stallDAG = `
name: stall
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: map, command: "true", parallelism: 3, memoryMB: 384}
  - {name: side, command: "true", parallelism: 2, memoryMB: 128}
  - {name: reduce, command: "true", parallelism: %d, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
  - {from: side, to: reduce, type: scatter-gather}
`

// stalled brings stallDAG to the deadlock: map 0 beside side 0, side 1 in
// side 0's place, reduce 0 in map 0's 384 MB beside side 1 (0 gathering <
// 1 running producer, slowstart.go's nextIndex), and reduce 1 in side 1's
// place, since map 1 (384 MB) does not fit the 256 MB left.
func stalled(t *testing.T, opts CoreOptions) *fakeWorld { return stalledN(t, opts, 2) }

// stalledN is stalled with n reduces: those beyond two wait in the queue.
func stalledN(t *testing.T, opts CoreOptions, n int) *fakeWorld {
	t.Helper()
	opts.SlowStart, opts.MaxWorkers = 0.05, 1
	f := newFake(t, opts)
	f.submit(fmt.Sprintf(stallDAG, n))
	f.addWorker("w1", "g", "n1", 512)
	f.finishVertexTask("side", 0)
	f.finishVertexTask("map", 0)
	f.now = f.now.Add(time.Second) // reduce 1 starts a second after reduce 0
	f.finishVertexTask("side", 1)
	if got := f.desc(); got != "reduce0(gathering) reduce1(gathering)" {
		t.Fatalf("fixture: running %s, want both reduces gathering", got)
	}
	return f
}

// desc lists the running attempts, by vertex and task, in id order.
func (f *fakeWorld) desc() string {
	out := ""
	for _, id := range sortedKeys(f.running) {
		a := f.c.attempt[id]
		if a == nil {
			continue // ended; the world has not heard yet
		}
		if out != "" {
			out += " "
		}
		out += a.task.vertex.spec.Name + string(rune('0'+a.task.index))
		if a.gathering {
			out += "(gathering)"
		}
	}
	return out
}

// drive runs the world for up to limit of virtual time, a tick a second,
// finishing every running attempt that is not gathering as soon as it
// runs (a gathering one cannot finish: its inputs are missing, but its
// worker reports it alive, as heartbeats list it). It
// returns how long the DAG took, or false if it had not ended by then.
func (f *fakeWorld) drive(limit time.Duration) (time.Duration, bool) {
	start := f.now
	for f.now.Sub(start) < limit && len(f.ended) == 0 {
		beats := map[string][]string{}
		for _, id := range sortedKeys(f.running) {
			a := f.c.attempt[id]
			switch {
			case a == nil:
			case a.gathering:
				beats[f.running[id]] = append(beats[f.running[id]], id)
			default:
				delete(f.running, id)
				f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
			}
		}
		for _, w := range sortedKeys(f.c.workers) {
			f.c.WorkerHeartbeat(f.now, w, beats[w]...)
		}
		f.drain()
		f.tick(time.Second)
	}
	return f.now.Sub(start), len(f.ended) > 0
}

// The deadlock of issue 23: with the group at its cap and every byte of it
// held by gathering reduces, the queued maps never run and nothing times
// out (the reduces are alive). An hour of virtual time must not pass
// without the DAG ending.
func TestSlowStartStallAtTheGroupCapEnds(t *testing.T) {
	f := stalled(t, CoreOptions{})
	took, done := f.drive(time.Hour)
	if !done {
		t.Fatalf("DAG still running after %s: running %s, %d attempts queued, %d killed",
			took, f.desc(), f.c.groups["g"].queue.Len(), f.c.PreemptCounts("g").SlowStartKilled)
	}
	if f.ended[0].State != DAGSucceeded || f.ended[0].Failed != 0 {
		t.Fatalf("DAG %s with %d failed attempts, want SUCCEEDED with none (a killed consumer is no failure)",
			f.ended[0].State, f.ended[0].Failed)
	}
	t.Logf("ended after %s, %d reduces killed", took, f.c.PreemptCounts("g").SlowStartKilled)
}

// killsAt drives the stalled fixture a second at a time and returns, for
// each of the given seconds after the stall began, the reduces killed by
// then (youngest first, as "r<task>").
func killsAt(t *testing.T, opts CoreOptions, seconds ...int) []string {
	t.Helper()
	f := stalled(t, opts)
	var got []string
	start := f.now
	for _, s := range seconds {
		for f.now.Sub(start) < time.Duration(s)*time.Second {
			f.tick(time.Second)
		}
		killed := ""
		for _, r := range f.c.Attempts(f.ended0ID()) {
			if r.Vertex == "reduce" && r.State == "KILLED" {
				killed += "r" + string(rune('0'+r.Task))
			}
		}
		got = append(got, killed)
	}
	return got
}

// ended0ID is the id of the fixture's one DAG.
func (f *fakeWorld) ended0ID() string {
	for id := range f.c.dags {
		return id
	}
	return ""
}

// The stall must last an interval (3 s) before the first kill; each round
// kills 10 % of the 2 gathering reduces, rounded up: 1, reduce 1 first
// (it started a second after reduce 0); the next round waits another
// interval. With 100 % both go in the first round.
func TestSlowStartStallKillsABoundedShareYoungestFirst(t *testing.T) {
	got := killsAt(t, CoreOptions{StallKillPercent: 10, StallKillInterval: 3 * time.Second}, 1, 3, 4, 5, 6)
	// The stall is first seen at the tick of second 1: kills at 1+3 = 4
	// and 4+3 = 7.
	if want := []string{"", "", "r1", "r1", "r1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("10 %%, 3 s: killed by seconds 1,3,4,5,6: %q, want %q", got, want)
	}
	got = killsAt(t, CoreOptions{StallKillPercent: 10, StallKillInterval: 3 * time.Second}, 7)
	if want := []string{"r0r1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("10 %%, 3 s: killed by second 7: %q, want %q", got, want)
	}
	got = killsAt(t, CoreOptions{StallKillPercent: 100, StallKillInterval: 3 * time.Second}, 4)
	if want := []string{"r0r1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("100 %%: killed by second 4: %q, want %q", got, want)
	}
}

// A round kills pct percent of the gathering consumers, rounded up.
func TestStallKills(t *testing.T) {
	for _, tc := range []struct{ n, pct, want int }{
		{2, 10, 1},    // 0.2 -> 1: at least one
		{20, 10, 2},   // exactly 2
		{21, 10, 3},   // 2.1 -> 3
		{5, 50, 3},    // 2.5 -> 3
		{7, 100, 7},   // all
		{1, 1, 1},     // 0.01 -> 1
		{100, 1, 1},   // exactly 1
		{250, 10, 25}, // exactly 25
		{3, 100, 3},   // never more than there are
	} {
		if got := stallKills(tc.n, tc.pct); got != tc.want {
			t.Errorf("stallKills(%d, %d%%) = %d, want %d", tc.n, tc.pct, got, tc.want)
		}
	}
}

// No false positives: the same gathering reduces and queued maps, but the
// group may grow (cap 2) or, at cap 2 with one worker, the RM reports room
// for one more: a worker will come, so nothing is killed in an hour. With
// a headroom below one worker (the cluster is full) the stall is real
// again and reduces are killed.
func TestSlowStartStallNotWhileAWorkerMayCome(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxWorkers int
		headroomMB int64 // -1: none reported
		wantKilled bool
	}{
		{"below the cap", 2, -1, false},
		{"below the cap, headroom for one", 2, 512, false},
		{"below the cap, headroom below one worker", 2, 256, true},
		{"at the cap", 1, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := stalled(t, CoreOptions{})
			f.c.groups["g"].maxW = tc.maxWorkers
			if tc.headroomMB >= 0 {
				f.c.SetHeadroom(f.now, tc.headroomMB)
				f.drain()
			}
			took, _ := f.drive(time.Hour)
			if killed := f.c.PreemptCounts("g").SlowStartKilled > 0; killed != tc.wantKilled {
				t.Errorf("after %s: killed %d reduces (running %s); want killed %v",
					took, f.c.PreemptCounts("g").SlowStartKilled, f.desc(), tc.wantKilled)
			}
		})
	}
}

// No false positives while producers run: maps that free room when they
// end make no stall, even with the group at its cap and reduces gathering
// beside them (slowstart.go's half rule), and nothing is killed.
func TestSlowStartStallNotWhileProducersRun(t *testing.T) {
	f := newFake(t, CoreOptions{SlowStart: 0.05, MaxWorkers: 1})
	f.submit(`
name: mr
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: map, command: "true", parallelism: 8, memoryMB: 256}
  - {name: reduce, command: "true", parallelism: 4, memoryMB: 256}
edges: [{from: map, to: reduce, type: scatter-gather}]
`)
	f.addWorker("w1", "g", "n1", 1024)
	// Each map runs 10 s: reduces gather beside them for most of the run.
	for m := 0; m < 8; m++ {
		for i := 0; i < 10; i++ {
			f.tick(time.Second)
		}
		f.finishVertexTask("map", m)
		if n := f.c.PreemptCounts("g").SlowStartKilled; n > 0 {
			t.Fatalf("after map %d (running %s): %d reduces killed, want none", m, f.desc(), n)
		}
	}
	if _, done := f.drive(time.Minute); !done {
		t.Fatalf("DAG did not end: running %s", f.desc())
	}
}

// Held back: with a third reduce queued, the 256 MB the first kill frees
// (reduce 1's) is not enough for a map (384 MB), and reduce 2 would fit
// there; the hold keeps it (and reduce 1) out until the maps have run, so
// two kills break the stall, not one more per reduce that slips back in.
func TestSlowStartStallHoldsConsumersBackUntilProducersRun(t *testing.T) {
	f := stalledN(t, CoreOptions{StallKillPercent: 10, StallKillInterval: 3 * time.Second}, 3)
	for i := 0; i < 4; i++ {
		f.tick(time.Second)
	}
	if got := f.desc(); got != "reduce0(gathering)" {
		t.Errorf("after the first kill: running %s, want reduce 0 only (the freed room kept for the maps)", got)
	}
	if _, done := f.drive(time.Hour); !done {
		t.Fatalf("DAG did not end: running %s", f.desc())
	}
	if n := f.c.PreemptCounts("g").SlowStartKilled; n != 2 {
		t.Errorf("%d reduces killed, want 2 (reduce 1, then reduce 0)", n)
	}
}

// The other way into a stall: producers lost to preemption. Maps 0 and 1
// ran on w1 and two reduces took their places (0 < 3 and 1 < 2 running
// maps); maps 2 and 3 ran on w2, which the RM then preempts while its
// queue is full (headroom 0, below one 512 MB worker). Maps 2 and 3 are
// queued again and no worker can come: without the stall rule the DAG
// hangs; with it reduce 1 is killed (256 MB, room for a map), the maps run
// one after another beside reduce 0, and the DAG ends with no failure.
func TestSlowStartStallAfterProducersLostWithNoHeadroom(t *testing.T) {
	f := newFake(t, CoreOptions{SlowStart: 0.05})
	f.submit(`
name: lost
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: map, command: "true", parallelism: 4, memoryMB: 256}
  - {name: reduce, command: "true", parallelism: 2, memoryMB: 256}
edges: [{from: map, to: reduce, type: scatter-gather}]
`)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	f.finishVertexTask("map", 0)
	f.now = f.now.Add(time.Second)
	f.finishVertexTask("map", 1)
	if got := f.desc(); got != "map2 map3 reduce0(gathering) reduce1(gathering)" {
		t.Fatalf("fixture: running %s", got)
	}
	f.c.SetHeadroom(f.now, 0)
	f.c.WorkerLost(f.now, "w2", "preempted (exit status -102)")
	f.drain()
	took, done := f.drive(time.Hour)
	if !done {
		t.Fatalf("DAG still running after %s: running %s, %d attempts queued, %d killed",
			took, f.desc(), f.c.groups["g"].queue.Len(), f.c.PreemptCounts("g").SlowStartKilled)
	}
	if f.ended[0].State != DAGSucceeded || f.ended[0].Failed != 0 {
		t.Fatalf("DAG %s with %d failed attempts, want SUCCEEDED with none", f.ended[0].State, f.ended[0].Failed)
	}
	if n := f.c.PreemptCounts("g").SlowStartKilled; n != 1 {
		t.Errorf("%d reduces killed, want 1 (one 256 MB reduce makes room for the 256 MB maps)", n)
	}
}
