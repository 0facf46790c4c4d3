package core

import (
	"reflect"
	"testing"
	"time"
)

// Victims go cheapest first: idle, then running by least work lost, and a
// holder of needed outputs only when nothing else covers the demand.
func TestPreemptVictims(t *testing.T) {
	idle := preemptCand{ID: "idle", MemoryMB: 1024}
	young := preemptCand{ID: "young", MemoryMB: 1024, Running: 1, Work: 5 * time.Second}
	old := preemptCand{ID: "old", MemoryMB: 1024, Running: 2, Work: 60 * time.Second}
	holder := preemptCand{ID: "holder", MemoryMB: 1024, Needed: 3}
	holder1 := preemptCand{ID: "holder1", MemoryMB: 1024, Needed: 1, Running: 1, Work: time.Hour}
	named := preemptCand{ID: "named", MemoryMB: 1024, Running: 1, Work: time.Minute, Named: true}
	namedHolder := holder
	namedHolder.Named = true
	all := []preemptCand{holder, old, young, idle}
	for _, tc := range []struct {
		name  string
		cands []preemptCand
		need  int64
		want  []string
	}{
		// Nothing wanted: nothing given.
		{"none", all, 0, nil},
		// 1500: idle (1500-1024 = 476 left), then young (476-1024 < 0).
		{"idle then youngest", all, 1500, []string{"idle", "young"}},
		// 3000: idle, young, old = 3072 >= 3000; the holder is spared.
		{"holder spared", all, 3000, []string{"idle", "young", "old"}},
		// 5000 > 4096, everything: the RM takes what is not given.
		{"all", all, 5000, []string{"idle", "young", "old", "holder"}},
		// Only holders: the one with fewer needed outputs (1 < 3), though
		// it has run for an hour.
		{"fewest outputs", []preemptCand{holder, holder1}, 1, []string{"holder1"}},
		// Named (the RM kills it anyway) before the younger young, after
		// idle: 1500 = idle 1024 + named 1024.
		{"named first in its class", []preemptCand{young, named, idle}, 1500, []string{"idle", "named"}},
		// A named holder of a needed output: young stands in for it.
		{"stand-in for a named holder", []preemptCand{namedHolder, young}, 1024, []string{"young"}},
	} {
		if got := preemptVictims(tc.cands, tc.need); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: need %d MB: gave back %v, want %v", tc.name, tc.need, got, tc.want)
		}
	}
}

const preemptDAG = `
name: pre
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: src, command: "true", parallelism: 3, memoryMB: 512}
  - {name: sink, command: "true", parallelism: 1, memoryMB: 512}
edges:
  - {from: src, to: sink, type: scatter-gather}
`

// preemptFixture: w1 holds a src output the sink needs, w2 runs a src
// attempt started 10 s ago, w3 one started now, w4 is idle; 512 MB each.
func preemptFixture(t *testing.T) *fakeWorld {
	f := newFake(t, CoreOptions{})
	f.submit(preemptDAG)
	f.addWorker("w1", "g", "n1", 512)
	f.now = f.now.Add(60 * time.Second)
	f.addWorker("w2", "g", "n2", 512)
	f.now = f.now.Add(10 * time.Second)
	f.addWorker("w3", "g", "n3", 512)
	for a, w := range f.running {
		if w == "w1" {
			delete(f.running, a)
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a, Result: AttemptSucceeded})
		}
	}
	f.drain()
	f.addWorker("w4", "g", "n4", 512)
	if len(f.running) != 2 {
		t.Fatalf("fixture: running %v, want w2 and w3 busy", f.running)
	}
	return f
}

func (f *fakeWorld) apply(ev Event) {
	f.c.Apply(f.now, ev)
	f.drain()
}

// A negotiable demand of 1024 MB naming w2 takes the idle w4, then w2
// (named: the RM kills it anyway) before w3, which has as little work;
// the same message again takes nothing more. When the RM then names w1,
// the only copy of a needed output, w3 stands in for it.
func TestPreemptionGivesBackCheapest(t *testing.T) {
	f := preemptFixture(t)
	f.apply(PreemptionWarned{Negotiable: []string{"w2"}, NegotiableMB: 1024})
	if want := []string{"w4", "w2"}; !reflect.DeepEqual(f.stopped, want) {
		t.Fatalf("gave back %v, want %v", f.stopped, want)
	}
	// Repeated: 512 MB wanted - 512 MB of w2, named before = 0 MB.
	f.now = f.now.Add(2 * time.Second)
	f.apply(PreemptionWarned{Negotiable: []string{"w2"}, NegotiableMB: 512})
	if len(f.stopped) != 2 {
		t.Fatalf("a repeated warning gave back more: %v", f.stopped)
	}
	f.now = f.now.Add(3 * time.Second)
	f.apply(PreemptionWarned{Negotiable: []string{"w1"}, NegotiableMB: 512})
	if want := []string{"w4", "w2", "w3"}; !reflect.DeepEqual(f.stopped, want) {
		t.Fatalf("gave back %v, want %v", f.stopped, want)
	}
	got := f.c.Groups()[0].Preempt
	if want := (PreemptCounts{Warned: 2, GivenBack: 3}); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
}

// The strict contract's workers go whatever they cost; a -102 kill counts
// as lost to preemption, also when the worker's connection closed first,
// and not as a task failure.
func TestPreemptionStrictAndLost(t *testing.T) {
	f := preemptFixture(t)
	f.apply(PreemptionWarned{Strict: []string{"w1"}})
	if want := []string{"w1"}; !reflect.DeepEqual(f.stopped, want) {
		t.Fatalf("gave back %v, want %v", f.stopped, want)
	}
	// Named with no memory wanted: nothing given back, but a warning.
	f.apply(PreemptionWarned{Negotiable: []string{"w2"}})
	f.apply(WorkerGone{Worker: "w2", Reason: "connection closed"})
	f.apply(WorkerGone{Worker: "w2", Reason: "exit status -102", Exited: true, Preempted: true})
	got := f.c.Groups()[0].Preempt
	if want := (PreemptCounts{Warned: 2, GivenBack: 1, Lost: 1}); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	for _, d := range f.c.DAGs() {
		if d.Failed != 0 {
			t.Errorf("DAG %s: %d failed attempts after preemption, want 0", d.ID, d.Failed)
		}
	}
}

// While the queue is being preempted the group asks for no more than the
// headroom; when the back-off ends it asks for all it wants again.
func TestPreemptionBacksOffToHeadroom(t *testing.T) {
	f := preemptFixture(t)
	f.apply(HeadroomReported{MemoryMB: 0})
	// w1, w3 and w4 taken: w3's src attempt and w1's src output (to
	// recompute) wait, so the group wants 1 live + 2 = 3 workers, but the
	// headroom is 0: it keeps to w2.
	f.apply(PreemptionWarned{Strict: []string{"w1", "w3", "w4"}})
	if got := f.wanted["g"]; got != 1 {
		t.Fatalf("wanted %d workers with no headroom, want the 1 live one", got)
	}
	// 600 MB of headroom holds one more worker of 512 (600/512 = 1).
	f.now = f.now.Add(time.Second)
	f.apply(HeadroomReported{MemoryMB: 600})
	if got := f.wanted["g"]; got != 2 {
		t.Fatalf("wanted %d workers with room for 1 more than 1, want 2", got)
	}
	// 30 s without a warning: the back-off is over, the cap lifts though
	// the headroom is 0 again.
	f.apply(HeadroomReported{MemoryMB: 0})
	f.tick(preemptBackoff)
	if got := f.wanted["g"]; got != 3 {
		t.Fatalf("wanted %d workers after the back-off, want 3", got)
	}
}
