package yarn

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// recorder is the core's executor in these tests: it keeps what the core
// asks of the world and of workers.
type recorder struct {
	wants []core.WantWorkers
	runs  []core.RunAttempt
	ended []core.DAGEnded
}

func (r *recorder) WantWorkers(_ time.Time, a core.WantWorkers) { r.wants = append(r.wants, a) }
func (r *recorder) RunAttempt(_ time.Time, a core.RunAttempt)   { r.runs = append(r.runs, a) }
func (r *recorder) KillAttempt(time.Time, core.KillAttempt)     {}
func (r *recorder) GrantCommit(time.Time, core.GrantCommit)     {}
func (r *recorder) StopWorker(time.Time, core.StopWorker)       {}
func (r *recorder) MoveWorker(time.Time, core.MoveWorker)       {}
func (r *recorder) DAGEnded(_ time.Time, a core.DAGEnded)       { r.ended = append(r.ended, a) }
func (r *recorder) Log(time.Time, core.Log)                     {}
func (r *recorder) AttemptInputs(time.Time, core.AttemptInputs) {}
func (r *recorder) StartAMWorker(time.Time, core.StartAMWorker) {}

// coreBench is a real core and a Book between it and a scripted RM: the
// core's wants become asks, the RM hands out what is asked for on node,
// and each container kept registers its worker.
type coreBench struct {
	t    *testing.T
	c    *core.Core
	b    *Book
	r    *recorder
	now  time.Time
	node string
	seq  int64
}

func newCoreBench(t *testing.T, spec string) *coreBench {
	t.Helper()
	o := amconf.Defaults()
	o.IDPrefix, o.SlowStart = "app_1_0001", 0
	c, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dag.Parse("x.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	bn := &coreBench{t: t, c: c, b: NewBook(), r: &recorder{}, now: time.Unix(1_800_000_000, 0), node: "n1:8041", seq: 1}
	if _, err := c.SubmitDAG(bn.now, core.Submission{Spec: d}); err != nil {
		t.Fatal(err)
	}
	return bn
}

// step runs a few heartbeats and returns the attempts the core started.
func (bn *coreBench) step() []core.RunAttempt {
	bn.t.Helper()
	for round := 0; round < 5; round++ {
		bn.now = bn.now.Add(time.Second)
		bn.c.Apply(bn.now, core.Tick{})
		bn.c.Drain(bn.now, bn.r)
		for _, w := range bn.r.wants {
			bn.b.Want(w)
		}
		bn.r.wants = nil
		req := bn.b.Request()
		var given []Container
		for _, a := range req.Asks {
			for i := int32(0); a.Name == AnyHost && i < a.Count; i++ {
				bn.seq++
				given = append(given, Container{ID: cid(bn.seq), Node: bn.node, Priority: a.Priority,
					Resource: Resource{MemoryMB: a.Capability.MemoryMB, VCores: 1}})
			}
		}
		keep, _ := bn.b.Allocated(given)
		for _, p := range keep {
			info := core.WorkerInfo{ID: p.Container.ID.String(), Group: p.Group.Name, Node: p.Container.Node,
				NodeMB: 65536, MemoryMB: p.Container.Resource.MemoryMB, VCores: 1}
			if err := bn.c.WorkerRegistered(bn.now, info); err != nil {
				bn.t.Fatal(err)
			}
		}
	}
	runs := bn.r.runs
	bn.r.runs = nil
	return runs
}

// The hang the Book's count rule prevents, core and Book together: a
// producer runs on n1, n1 drains (a scale-in), and once the producer is
// done its worker stays to serve the output while the consumer queues.
// The core counts that container out and wants one new one; the Book must
// ask for it, or the DAG waits for ever.
func TestCoreDrainedNodeGetsANewContainer(t *testing.T) {
	bn := newCoreBench(t, `
name: k
containerGroup: {name: g, workerMemoryMB: 4096}
vertices:
  - {name: produce, command: "true", parallelism: 1, memoryMB: 1024}
  - {name: consume, command: "true", parallelism: 1, memoryMB: 1024}
edges: [{from: produce, to: consume, type: scatter-gather}]
`)
	first := bn.step()
	if len(first) != 1 {
		t.Fatalf("started %d attempts, want the producer", len(first))
	}
	bn.c.DrainNode(bn.now, "n1:8041", "scale-in", false)
	bn.node = "n2:8041"
	bn.c.AttemptUpdate(bn.now, core.AttemptUpdate{AttemptID: first[0].Attempt.ID, Result: core.AttemptSucceeded})
	second := bn.step()
	if len(second) != 1 || second[0].Worker == first[0].Worker {
		t.Fatalf("after n1 drained: started %+v, want the consumer on a new worker", second)
	}
	bn.c.AttemptUpdate(bn.now, core.AttemptUpdate{AttemptID: second[0].Attempt.ID, Result: core.AttemptSucceeded})
	bn.step()
	if len(bn.r.ended) != 1 || bn.r.ended[0].DAG.State != core.DAGSucceeded {
		t.Fatalf("DAG ended %+v, want it succeeded", bn.r.ended)
	}
}
