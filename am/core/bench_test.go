package core

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
)

// BenchmarkPlace measures the Core placing attempts: 1,000 workers (4 per
// node, 4 attempts each) and one DAG of 100,000 queued tasks. Each round
// places everything that fits, then finishes it; b.N rounds of 100k
// placements. Reported as placements/s.
func BenchmarkPlace(b *testing.B) { benchPlace(b, 1000, 100000, 1) }

// BenchmarkPlace10k is BenchmarkPlace at ten times the size: 10,000
// workers on 2,500 nodes and 1,000,000 queued tasks (issue 27: a core for
// 10,000 workers). One round takes seconds: run it with -benchtime 1x.
func BenchmarkPlace10k(b *testing.B) { benchPlace(b, 10000, 1000000, 1) }

// BenchmarkPlace10kPacked is BenchmarkPlace10k under the AM's default
// packing scheme, packed at its default settings, instead of uniform:
// 2,500 nodes are above its minimum node count, where it packs. It asks
// for workers as the AM does, at most the default 10 pending: a packing
// group plans where each pending worker goes (planAsks), and with no cap
// (a core option only: the key's least is 1) that plan covers a worker
// for every four queued tasks, rebuilt on every event.
func BenchmarkPlace10kPacked(b *testing.B) {
	d := conf.Defaults()
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: d.Int("ebb.packing.high.threshold.percent"),
		MinNodes: d.Int("ebb.packing.min.nodes"), LocalityDelay: d.Duration("ebb.packing.locality.delay.ms")})
	if err != nil {
		b.Fatal(err)
	}
	benchPlaceOpts(b, 10000, 1000000, 1, CoreOptions{Allocator: alloc,
		MaxPendingRequests: d.Int("mr3.am.resourcescheduler.max.requests.per.taskscheduler")})
}

// BenchmarkPlaceSlowStart is BenchmarkPlace under the AM's default slow
// start (ebb.slowstart.completed.producers 0.05; the other benchmarks
// leave it off, as they did before it existed): choosing a DAG's next
// attempt must not walk its whole queue.
func BenchmarkPlaceSlowStart(b *testing.B) {
	benchPlaceWith(b, 1000, 100000, 1, conf.Defaults().Float("ebb.slowstart.completed.producers"))
}

// BenchmarkPlaceManyDAGs is BenchmarkPlace with the 100,000 tasks in
// 1,000 DAGs of 100, queued at once: the placement pass must not look at
// every queued DAG for every placement (it did: O(DAGs) per placement).
func BenchmarkPlaceManyDAGs(b *testing.B) { benchPlace(b, 1000, 100000, 1000) }

// benchPlace places tasks one-task-per-attempt tasks, split into dags
// DAGs, on workers workers (4 per node). The clock runs from the first
// SubmitDAG to the last placement: building the tasks is part of the cost.
func benchPlace(b *testing.B, workers, tasks, dags int) { benchPlaceWith(b, workers, tasks, dags, 0) }

// benchPlaceWith is benchPlace with slow start at slowStart.
func benchPlaceWith(b *testing.B, workers, tasks, dags int, slowStart float64) {
	benchPlaceOpts(b, workers, tasks, dags, CoreOptions{SlowStart: slowStart})
}

// benchPlaceOpts is benchPlace with the Core's options o (withDefaults
// fills the others in: uniform packing, no cap on pending workers).
func benchPlaceOpts(b *testing.B, workers, tasks, dags int, o CoreOptions) {
	specs := benchSpecs(tasks, dags)
	placed := 0
	var elapsed, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := benchCore(b, workers, o)
		now := time.Unix(0, 0)
		b.StartTimer()
		start, cpu0 := time.Now(), processCPU(b)
		for _, spec := range specs {
			if _, err := c.SubmitDAG(now, Submission{Spec: spec}); err != nil {
				b.Fatal(err)
			}
		}
		for {
			x := &discard{c: c}
			c.Drain(now, x)
			placed += x.ran
			if x.ran == 0 {
				break
			}
		}
		elapsed += time.Since(start)
		cpu += processCPU(b) - cpu0
	}
	b.ReportMetric(float64(placed)/elapsed.Seconds(), "placements/s")
	// On a shared machine the wall clock counts the other processes' time
	// too; the process's CPU time (its GC included) counts only its own.
	b.ReportMetric(float64(placed)/cpu.Seconds(), "placements/cpu-s")
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkQueuedTaskBytes reports the heap a queued task costs: 100,000
// tasks of one DAG submitted to a Core with no worker, so every one
// waits in the queue (its task record, the vertex's pointer to it and the
// queue's entry; a queued task has no attempt record until it is placed).
// Measured as live heap after a GC, before and after.
func BenchmarkQueuedTaskBytes(b *testing.B) {
	const tasks = 100000
	spec := benchSpecs(tasks, 1)[0]
	var perTask float64
	for i := 0; i < b.N; i++ {
		c, err := NewCore(withDefaults(CoreOptions{}))
		if err != nil {
			b.Fatal(err)
		}
		before := liveHeap()
		if _, err := c.SubmitDAG(time.Unix(0, 0), Submission{Spec: spec}); err != nil {
			b.Fatal(err)
		}
		c.Drain(time.Unix(0, 0), &discard{})
		after := liveHeap()
		if q := c.groups["g"].queue.Len(); q != tasks {
			b.Fatalf("%d tasks queued, want %d", q, tasks)
		}
		runtime.KeepAlive(c)
		perTask = float64(after-before) / tasks
	}
	b.ReportMetric(perTask, "bytes/task")
}

// liveHeap is the heap still reachable, after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchSpecs splits tasks one-vertex tasks of 1 GB into dags DAGs of the
// one group "g" (4 GB workers).
func benchSpecs(tasks, dags int) []*dag.Spec {
	var specs []*dag.Spec
	for k := 0; k < dags; k++ {
		specs = append(specs, &dag.Spec{
			Name:     fmt.Sprintf("bench-%d", k),
			Group:    dag.GroupSpec{Name: "g", WorkerMemoryMB: 4096, WorkerVCores: 1},
			Vertices: []dag.VertexSpec{{Name: "v", Command: dag.Command{"true"}, Parallelism: tasks / dags, MemoryMB: 1024}},
		})
	}
	return specs
}

// benchCore is a Core with options o (withDefaults) and workers 4 GB
// workers registered, 4 per 16 GB node, and nothing queued.
func benchCore(b *testing.B, workers int, o CoreOptions) *Core {
	c, err := NewCore(withDefaults(o))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Unix(0, 0)
	// The group exists once a DAG names it; a tiny DAG creates it so
	// the workers can register before the big one arrives.
	seed := *benchSpecs(1, 1)[0]
	seed.Name = "seed"
	if _, err := c.SubmitDAG(now, Submission{Spec: &seed}); err != nil {
		b.Fatal(err)
	}
	for w := 0; w < workers; w++ {
		if err := c.WorkerRegistered(now, WorkerInfo{ID: fmt.Sprintf("w%05d", w), Group: "g", Node: fmt.Sprintf("n%04d", w/4), NodeMB: 16384, MemoryMB: 4096}); err != nil {
			b.Fatal(err)
		}
	}
	c.Drain(now, &discard{})
	return c
}

// discard is an Executor that finishes every attempt at once (when c is
// set) and drops every other action.
type discard struct {
	c   *Core
	ran int
}

func (d *discard) RunAttempt(now time.Time, a RunAttempt) {
	if d.c != nil {
		d.ran++
		d.c.AttemptUpdate(now, AttemptUpdate{AttemptID: a.Attempt.ID, Result: AttemptSucceeded})
	}
}
func (*discard) WantWorkers(time.Time, WantWorkers)     {}
func (*discard) KillAttempt(time.Time, KillAttempt)     {}
func (*discard) StopWorker(time.Time, StopWorker)       {}
func (*discard) AttemptInputs(time.Time, AttemptInputs) {}
func (*discard) StartAMWorker(time.Time, StartAMWorker) {}
func (*discard) GrantCommit(time.Time, GrantCommit)     {}
func (*discard) MoveWorker(time.Time, MoveWorker)       {}
func (*discard) DAGEnded(time.Time, DAGEnded)           {}
func (*discard) Log(time.Time, Log)                     {}
