package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// BenchmarkPlace measures the Core placing attempts: 1,000 workers (4 per
// node, 4 attempts each) and one DAG of 100,000 queued tasks. Each round
// places everything that fits, then finishes it; b.N rounds of 100k
// placements. Reported as placements/s.
func BenchmarkPlace(b *testing.B) { benchPlace(b, 1) }

// BenchmarkPlaceManyDAGs is BenchmarkPlace with the 100,000 tasks in
// 1,000 DAGs of 100, queued at once: the placement pass must not look at
// every queued DAG for every placement (it did: O(DAGs) per placement).
func BenchmarkPlaceManyDAGs(b *testing.B) { benchPlace(b, 1000) }

// benchPlace places 100,000 one-task-per-attempt tasks split into dags
// DAGs on 1,000 workers.
func benchPlace(b *testing.B, dags int) {
	var specs []*dag.Spec
	for k := 0; k < dags; k++ {
		specs = append(specs, &dag.Spec{
			Name:     fmt.Sprintf("bench-%d", k),
			Group:    dag.GroupSpec{Name: "g", WorkerMemoryMB: 4096, WorkerVCores: 1},
			Vertices: []dag.VertexSpec{{Name: "v", Command: dag.Command{"true"}, Parallelism: 100000 / dags, MemoryMB: 1024}},
		})
	}
	spec := specs[0]
	placed := 0
	var elapsed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, err := NewCore(withDefaults(CoreOptions{}))
		if err != nil {
			b.Fatal(err)
		}
		now := time.Unix(0, 0)
		// The group exists once a DAG names it; a tiny DAG creates it so
		// the workers can register before the big one arrives.
		seed := *spec
		seed.Name = "seed"
		seed.Vertices = []dag.VertexSpec{{Name: "v", Command: dag.Command{"true"}, Parallelism: 1, MemoryMB: 1024}}
		if _, err := c.SubmitDAG(now, Submission{Spec: &seed}); err != nil {
			b.Fatal(err)
		}
		for w := 0; w < 1000; w++ {
			if err := c.WorkerRegistered(now, WorkerInfo{ID: fmt.Sprintf("w%04d", w), Group: "g", Node: fmt.Sprintf("n%03d", w/4), NodeMB: 16384, MemoryMB: 4096}); err != nil {
				b.Fatal(err)
			}
		}
		c.Drain(now, &discard{})
		b.StartTimer()
		start := time.Now()
		for _, spec := range specs {
			if _, err := c.SubmitDAG(now, Submission{Spec: spec}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for {
			x := &discard{c: c}
			c.Drain(now, x)
			placed += x.ran
			if x.ran == 0 {
				break
			}
		}
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(placed)/elapsed.Seconds(), "placements/s")
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
