package core

import (
	"fmt"
	"testing"
)

const slowStartDAG = `
name: mr
containerGroup: {name: g, workerMemoryMB: 4096}
vertices:
  - {name: map, command: "true", parallelism: 4, memoryMB: 256}
  - name: reduce
    command: "true"
    parallelism: 2
    memoryMB: 256
    shuffleProfile: {cpu: 0.01, memory: 0.1, io: 0.05}
    reduceProfile: {cpu: 0.2, memory: 0.1, io: 0.3}
edges: [{from: map, to: reduce, type: scatter-gather}]
`

// finishVertexTask completes the running attempt of vertex task.
func (f *fakeWorld) finishVertexTask(vertex string, task int) {
	f.t.Helper()
	for id := range f.running {
		a := f.c.attempt[id]
		if a.task.vertex.spec.Name == vertex && a.task.index == task {
			delete(f.running, id)
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
			f.drain()
			return
		}
	}
	f.t.Fatalf("%s task %d is not running", vertex, task)
}

// runningVertex lists the running attempts of a vertex.
func (f *fakeWorld) runningVertex(vertex string) []*attemptRun {
	var out []*attemptRun
	for _, id := range sortedKeys(f.running) {
		if a := f.c.attempt[id]; a.task.vertex.spec.Name == vertex {
			out = append(out, a)
		}
	}
	return out
}

// With slow start at 0.05 the reduces start once ceil(0.05 x 4) = 1 map has
// succeeded, with that map's output only; each later map's output reaches
// them as it appears, and the last moves them from their shuffle profile
// to their reduce profile. At 0 (off) they wait for all four.
func TestSlowStartConsumersGatherInputsDuringTheMaps(t *testing.T) {
	f := newFake(t, CoreOptions{SlowStart: 0.05})
	f.submit(slowStartDAG)
	f.addWorker("w1", "g", "n1", 4096) // 16 slots of 256 MB: every task fits at once
	if n := len(f.runningVertex("map")); n != 4 {
		t.Fatalf("%d maps running, want 4", n)
	}
	f.finishVertexTask("map", 0)
	reduces := f.runningVertex("reduce")
	if len(reduces) != 2 {
		t.Fatalf("%d reduces running after 1 of 4 maps, want 2 (slow start 0.05)", len(reduces))
	}
	for _, a := range reduces {
		s := f.c.attemptSpec(a)
		if !s.Incomplete || len(s.Inputs) != 1 || s.Inputs[0].ProducerTask != 0 || s.Inputs[0].Partition != a.task.index {
			t.Fatalf("reduce %d started with %+v (incomplete %v), want only map 0's partition %d", a.task.index, s.Inputs, s.Incomplete, a.task.index)
		}
		if a.profile.IO != 0.05 {
			t.Errorf("reduce %d runs with %+v, want its shuffle profile", a.task.index, *a.profile)
		}
	}
	for m := 1; m < 4; m++ {
		f.finishVertexTask("map", m)
	}
	// Three later maps x two reduces: six messages, each naming the map's
	// output and the reduce's own partition; the last map's completes them.
	var got []string
	for _, in := range f.inputs {
		a := f.c.attempt[in.AttemptID]
		got = append(got, fmt.Sprintf("r%d<-m%d/p%d:%v", a.task.index, in.Inputs[0].ProducerTask, in.Inputs[0].Partition, in.Complete))
	}
	want := "[r0<-m1/p0:false r1<-m1/p1:false r0<-m2/p0:false r1<-m2/p1:false r0<-m3/p0:true r1<-m3/p1:true]"
	if fmt.Sprint(got) != want {
		t.Errorf("inputs after start:\n got %v\nwant %s", got, want)
	}
	for _, a := range reduces {
		if a.gathering || a.profile.IO != 0.3 {
			t.Errorf("reduce %d after the last map: gathering %v, profile %+v; want its reduce profile", a.task.index, a.gathering, *a.profile)
		}
	}

	off := newFake(t, CoreOptions{})
	off.submit(slowStartDAG)
	off.addWorker("w1", "g", "n1", 4096)
	for m := 0; m < 3; m++ {
		off.finishVertexTask("map", m)
	}
	if n := len(off.runningVertex("reduce")); n != 0 {
		t.Fatalf("without slow start %d reduces run before the last map", n)
	}
	off.finishVertexTask("map", 3)
	if n := len(off.runningVertex("reduce")); n != 2 || len(off.inputs) != 0 {
		t.Fatalf("without slow start: %d reduces after the last map, %d input messages; want 2 and none", n, len(off.inputs))
	}
}

// A map output lost while the reduces gather theirs is recomputed, and the
// new attempt's output reaches them; they complete only with it.
func TestSlowStartRefetchesARecomputedOutput(t *testing.T) {
	f := newFake(t, CoreOptions{SlowStart: 0.05})
	f.submit(slowStartDAG)
	f.addWorker("w1", "g", "n1", 4096)
	f.finishVertexTask("map", 0)
	if n := len(f.runningVertex("reduce")); n != 2 {
		t.Fatalf("%d reduces running, want 2", n)
	}
	var map0 *taskRun
	for _, a := range f.runningVertex("reduce") {
		map0 = a.task.vertex.in[0].other.tasks[0]
	}
	first := map0.output.id
	f.c.loseOutput(map0) // as when the worker holding it is lost
	f.drain()
	for m := 1; m < 4; m++ {
		f.finishVertexTask("map", m)
	}
	for _, in := range f.inputs {
		if in.Complete {
			t.Fatalf("a reduce completed its inputs without map 0's: %+v", in)
		}
	}
	f.inputs = nil
	f.finishVertexTask("map", 0) // the recomputed attempt
	if len(f.inputs) != 2 {
		t.Fatalf("%d input messages after map 0 ran again, want one per reduce", len(f.inputs))
	}
	for _, in := range f.inputs {
		if !in.Complete || in.Inputs[0].ProducerAttempt == first || in.Inputs[0].ProducerTask != 0 {
			t.Errorf("after the recompute: %+v; want map 0's new attempt (not %s), completing the inputs", in, first)
		}
	}
}

// Under slow start a reduce queued while maps remain goes ahead of the
// queued maps, as MapReduce launches reduces beside the remaining maps,
// but gathering reduces never outnumber the running maps, so they cannot
// take every slot the maps need.
func TestSlowStartReducesGoAheadOfQueuedMapsUpToHalf(t *testing.T) {
	f := newFake(t, CoreOptions{SlowStart: 0.05})
	f.submit(`
name: mr
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: map, command: "true", parallelism: 8, memoryMB: 256}
  - {name: reduce, command: "true", parallelism: 4, memoryMB: 256}
edges: [{from: map, to: reduce, type: scatter-gather}]
`)
	f.addWorker("w1", "g", "n1", 1024) // 4 slots: maps 0-3
	count := func() string {
		return fmt.Sprintf("maps %d reduces %d", len(f.runningVertex("map")), len(f.runningVertex("reduce")))
	}
	var got []string
	for m := 0; m < 3; m++ {
		f.finishVertexTask("map", m)
		got = append(got, count())
	}
	// After map 0: a reduce (0 gathering < 3 maps running); after map 1:
	// another (1 < 2); after map 2: 2 gathering, 1 map running, so map 4.
	want := "[maps 3 reduces 1 maps 2 reduces 2 maps 2 reduces 2]"
	if fmt.Sprint(got) != want {
		t.Errorf("after each map:\n got %v\nwant %s", got, want)
	}
}

// nextIndex walks a DAG's queue only while some consumer vertex waits for
// a producer (consumersWaiting); once none does, or in a DAG with no
// consumer, every consumer task is ready and the head goes next.
func TestConsumersWaiting(t *testing.T) {
	f := newFake(t, CoreOptions{})
	mapOnly := f.c.dags[f.submit(fmt.Sprintf(tinyDAG, 1))]
	if mapOnly.consumersWaiting() {
		t.Fatal("a DAG with no consumer vertex has consumers waiting")
	}
	d := f.c.dags[f.submit(diamond)]
	if !d.consumersWaiting() {
		t.Fatal("diamond before src ran: left waits for src, want consumers waiting")
	}
	f.addWorker("w1", "g", "n1", 4096)
	f.finishAll() // src (and tiny)
	f.finishAll() // left and right
	if n := d.byName["sink"]; n.succeeded != 0 || d.byName["left"].succeeded != 2 || d.byName["right"].succeeded != 3 {
		t.Fatalf("left %d/2, right %d/3, sink %d: want left and right done, sink not", d.byName["left"].succeeded, d.byName["right"].succeeded, n.succeeded)
	}
	if d.consumersWaiting() {
		t.Fatal("diamond with left and right done: sink's producers are done, want no consumer waiting")
	}
}
