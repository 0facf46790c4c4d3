package kube

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

// bench is a real core and a Book between it and a scripted API server:
// the core's wants become pods, a pod that runs registers its worker.
type bench struct {
	t   *testing.T
	c   *core.Core
	b   *Book
	r   *recorder
	now time.Time
	// node: where the pods the plan creates run.
	node string
}

const oneTask = `
name: k
containerGroup: {name: g, workerMemoryMB: 4096}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 1024}]
`

// newBench: maxFailed failures fail a task and its DAG.
func newBench(t *testing.T, maxFailed int) *bench { return newBenchOf(t, maxFailed, oneTask) }

// newBenchOf runs the DAG of spec.
func newBenchOf(t *testing.T, maxFailed int, spec string) *bench {
	t.Helper()
	o := amconf.Defaults()
	o.IDPrefix, o.SlowStart = "app_1_0001", 0
	o.MaxFailedAttempts = maxFailed
	c, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBook(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	d, err := dag.Parse("x.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	bn := &bench{t: t, c: c, b: b, r: &recorder{}, now: time.Unix(1_800_000_000, 0), node: "n1"}
	if _, err := c.SubmitDAG(bn.now, core.Submission{Spec: d}); err != nil {
		t.Fatal(err)
	}
	return bn
}

// step drains the core, hands its wants to the Book, and runs every pod
// the plan creates on bn.node, registering its worker; it returns the
// attempts the core started.
func (bn *bench) step() []core.RunAttempt {
	bn.t.Helper()
	for round := 0; round < 5; round++ {
		bn.now = bn.now.Add(time.Second)
		bn.c.Apply(bn.now, core.Tick{})
		bn.c.Drain(bn.now, bn.r)
		for _, w := range bn.r.wants {
			bn.b.Want(w)
		}
		bn.r.wants = nil
		for _, p := range bn.b.Plan().Create {
			bn.b.PodObserved(PodStatus{Name: p.Name, Phase: PhaseRunning, Node: bn.node})
			info := core.WorkerInfo{ID: p.Name, Group: "g", Node: bn.node, NodeMB: 65536, MemoryMB: p.MemoryMB, VCores: 1}
			if err := bn.c.WorkerRegistered(bn.now, info); err != nil {
				bn.t.Fatal(err)
			}
		}
	}
	runs := bn.r.runs
	bn.r.runs = nil
	return runs
}

func (bn *bench) apply(evs []core.Event) {
	for _, ev := range evs {
		bn.c.Apply(bn.now, ev)
	}
}

// lose ends the worker pod of run r as the API server reports it, after
// the worker's connection closed when connFirst (as it does: the process
// dies before the kubelet writes the pod's terminal status).
func (bn *bench) lose(r core.RunAttempt, connFirst bool, s PodStatus) {
	if connFirst {
		bn.c.Apply(bn.now, core.WorkerGone{Worker: r.Worker, Reason: "connection closed: EOF"})
	}
	s.Name, s.Node = r.Worker, "n1"
	bn.apply(bn.b.PodObserved(s))
}

// orders: the pod's status before the connection closes, and after.
var orders = []struct {
	name      string
	connFirst bool
}{{"status first", false}, {"connection first", true}}

// A worker pod the scheduler preempts: its attempt runs again on a new
// pod, no failure is counted (one would have failed the DAG), and the
// group counts the container lost to preemption, as on YARN, whichever
// the core hears of first.
func TestCorePreemptedPodReRunsWithoutAFailure(t *testing.T) {
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			bn := newBench(t, 1)
			first := bn.step()
			if len(first) != 1 {
				t.Fatalf("started %d attempts, want 1", len(first))
			}
			bn.lose(first[0], o.connFirst, PodStatus{Phase: PhaseFailed, Disruption: DisruptionPreemption,
				Terminated: &Terminated{Reason: "Error", ExitCode: 143}})
			again := bn.step()
			if len(again) != 1 || again[0].Worker == first[0].Worker || again[0].Attempt.Task != first[0].Attempt.Task {
				t.Fatalf("after the preemption: %+v, want the same task on a new worker", again)
			}
			if len(bn.r.ended) > 0 {
				t.Fatalf("the DAG ended: %+v", bn.r.ended)
			}
			if got, want := bn.c.PreemptCounts("g"), (core.PreemptCounts{Lost: 1}); got != want {
				t.Errorf("group g counts %+v, want %+v (one container lost to preemption)", got, want)
			}
		})
	}
}

// A worker pod evicted (a drain, node pressure) is counted as evicted,
// apart from preemption, and counts no failure either.
func TestCoreEvictedPodIsCountedApart(t *testing.T) {
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			bn := newBench(t, 1)
			first := bn.step()
			bn.lose(first[0], o.connFirst, PodStatus{Phase: PhaseFailed, Reason: ReasonEvicted, Disruption: DisruptionKubelet,
				Message: "The node was low on resource: memory.", Terminated: &Terminated{Reason: "Error", ExitCode: 137}})
			if again := bn.step(); len(again) != 1 || len(bn.r.ended) > 0 {
				t.Fatalf("after the eviction: %+v, ended %+v; want the task again", again, bn.r.ended)
			}
			if got, want := bn.c.PreemptCounts("g"), (core.PreemptCounts{Evicted: 1}); got != want {
				t.Errorf("group g counts %+v, want %+v", got, want)
			}
		})
	}
}

// A pod that ended on its own after its connection closed stays a plain
// loss: nothing counted.
func TestCorePlainLossCountsNothing(t *testing.T) {
	bn := newBench(t, 1)
	first := bn.step()
	bn.lose(first[0], true, PodStatus{Phase: PhaseFailed, Terminated: &Terminated{Reason: "Error", ExitCode: 2}})
	if got := bn.c.PreemptCounts("g"); got != (core.PreemptCounts{}) {
		t.Errorf("group g counts %+v after a plain loss, want nothing", got)
	}
}

// A worker pod OOMKilled: its attempt fails on the memory retry path (one
// failure counted) and runs again on the new pod asking for more memory,
// whichever the core hears of first.
func TestCoreOOMKilledPodRetriesWithMoreMemory(t *testing.T) {
	for _, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			bn := newBench(t, 4)
			first := bn.step()
			if len(first) != 1 {
				t.Fatalf("started %d attempts, want 1", len(first))
			}
			bn.lose(first[0], o.connFirst, PodStatus{Phase: PhaseFailed, Terminated: &Terminated{Reason: ReasonOOMKilled, ExitCode: 137}})
			// With the connection first, the attempt was queued again at
			// once; the cause, come before a worker could take it, raised
			// its ask all the same.
			var onNew []core.RunAttempt
			for _, r := range bn.step() {
				if r.Worker != first[0].Worker {
					onNew = append(onNew, r)
				}
			}
			if len(onNew) != 1 || onNew[0].Attempt.MemoryMB <= first[0].Attempt.MemoryMB {
				t.Fatalf("after the OOMKill: %+v, want the task again on a new worker with more than %d MB", onNew, first[0].Attempt.MemoryMB)
			}
			if st, _ := bn.c.DAG(first[0].Attempt.DAGID); st.Failed != 1 {
				t.Errorf("%d failed attempts, want 1 (the OOM kill)", st.Failed)
			}
		})
	}
}

// The hang the Book's count rule prevents, core and Book together: a
// producer runs on n1, n1 drains (a scale-in), and once the producer is
// done its worker stays to serve the output while the consumer queues.
// The core counts that worker out and wants one new one; the Book must
// not let the draining pod stand in for it, or the DAG waits for ever.
func TestCoreDrainedNodeGetsANewWorker(t *testing.T) {
	bn := newBenchOf(t, 1, `
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
	bn.c.DrainNode(bn.now, "n1", "scale-in", false)
	bn.node = "n2"
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

// A group at its maximum: when its only node drains, the total the core
// wants stays the same (1 worker, one task queued), yet the Book must
// hear that the node drains, or it keeps counting the draining pod.
func TestCoreDrainAtTheMaximumGetsANewWorker(t *testing.T) {
	bn := newBenchOf(t, 1, `
name: k
containerGroup: {name: g, workerMemoryMB: 4096, maxWorkers: 1}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 3072}]
`)
	first := bn.step()
	if len(first) != 1 {
		t.Fatalf("started %d attempts, want 1 (the other waits: one worker at most, room for one)", len(first))
	}
	bn.c.DrainNode(bn.now, "n1", "scale-in", false)
	bn.node = "n2"
	second := bn.step()
	if len(second) != 1 || second[0].Worker == first[0].Worker {
		t.Fatalf("after n1 drained: started %+v, want the other task on a new worker", second)
	}
	for _, r := range append(first, second...) {
		bn.c.AttemptUpdate(bn.now, core.AttemptUpdate{AttemptID: r.Attempt.ID, Result: core.AttemptSucceeded})
	}
	bn.step()
	if len(bn.r.ended) != 1 || bn.r.ended[0].DAG.State != core.DAGSucceeded {
		t.Fatalf("DAG ended %+v, want it succeeded", bn.r.ended)
	}
}
