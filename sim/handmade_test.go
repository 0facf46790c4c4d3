package sim

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// A burst that needs a scale-out, with exact figures. Three jobs at t=0,
// each one 8000 MB task of 50 s in an 8000 MB worker; a 10,000 MB node
// holds one such worker, so the burst needs three nodes. spark-da: the
// backlog has lasted 1 s at t=1, so it asks for 1 worker (node A requested,
// billing starts); at t=2 the backlog is still there and the ramp doubles:
// 2 more (nodes B and C). A is ready at 101, B and C at 102 (100 s to
// provision, workers up at once); the tasks run 101..151, 102..152 and
// 102..152, and the run ends with the last job at 152.
// Node-seconds: A 152-1 = 151, B and C 152-2 = 150 each: 451.
func TestBurstExactNodeSeconds(t *testing.T) {
	jobs := []Job{
		job("a", 0, 1, 8000, 50*time.Second, 8000),
		job("b", 0, 1, 8000, 50*time.Second, 8000),
		job("c", 0, 1, 8000, 50*time.Second, 8000),
	}
	r := runOne(t, jobs, "spark-da")
	var last time.Duration
	for _, j := range r.Jobs {
		if !j.Completed {
			t.Fatalf("job %s did not complete", j.ID)
		}
		last = max(last, j.Finish)
	}
	if last != 152*time.Second {
		t.Errorf("last job ended at %s, want 152s", last)
	}
	if r.NodeSeconds != 451 {
		t.Errorf("node-seconds %.1f, want 451 (151 + 150 + 150)", r.NodeSeconds)
	}
	// The lower bound comes from the trace: 3 tasks x 8000 MB x 50 s.
	if r.TaskMBSeconds != 3*8000*50 {
		t.Errorf("task MB-seconds %.0f, want %d", r.TaskMBSeconds, 3*8000*50)
	}
}

// Contention when a node's load changes mid-run: two attempts at cpu 0.75
// start together, one of 30 s and one of 60 s of work. Together they ask
// for 1.5 of the CPU, so both run at 1/1.5 = 2/3 speed: the short one's
// 30 s of work takes 45 s. By then the long one has done 45 x 2/3 = 30 s of
// its 60; alone again, it does the other 30 s at full speed and ends at
// 45 + 30 = 75 s, 15 s later than the 60 s attempt alone.
func TestContentionLoadChange(t *testing.T) {
	mk := func(durs ...time.Duration) []Job {
		j := job("c", 0, len(durs), 1000, 0, 10000)
		j.Spec.Vertices[0].SimDurations = nil
		for _, d := range durs {
			j.Spec.Vertices[0].SimDurations = append(j.Spec.Vertices[0].SimDurations, dag.Duration(d))
		}
		j.Spec.Vertices[0].Profile = &dag.Profile{CPU: 0.75, Memory: 0.1}
		return []Job{j}
	}
	alone := runOne(t, mk(60*time.Second), "static-1").Jobs[0].Finish
	both := runOne(t, mk(30*time.Second, 60*time.Second), "static-1").Jobs[0].Finish
	if d := both - alone; d != 15*time.Second {
		t.Fatalf("the 60 s attempt beside a 30 s one ended %s after it alone, want 15s (75 s vs 60 s)", d)
	}
}

// Only the resources an attempt uses slow it: an I/O-bound attempt (io 0.6)
// beside two others at io 0.3 (I/O sum 1.2) runs at 1/1.2; a CPU-only
// attempt (cpu 0.5, no I/O) on the same node is untouched, as the CPU sum
// is 0.5 and it uses no I/O. 60 s of I/O-bound work takes 72 s.
func TestContentionPerResource(t *testing.T) {
	spec := func(name string, prof dag.Profile, d time.Duration) dag.VertexSpec {
		p := prof
		return dag.VertexSpec{Name: name, Command: dag.Command{"sim"}, Parallelism: 1, MemoryMB: 1000,
			SimDurations: []dag.Duration{dag.Duration(d)}, Profile: &p}
	}
	mk := func(vs ...dag.VertexSpec) Job {
		return Job{ID: vs[0].Name, Spec: &dag.Spec{Name: vs[0].Name,
			Group:    dag.GroupSpec{Name: "g", WorkerMemoryMB: 10000, WorkerVCores: 1},
			Vertices: vs}}
	}
	io := mk(spec("io", dag.Profile{IO: 0.6}, 60*time.Second))
	cpu := mk(spec("cpu", dag.Profile{CPU: 0.5}, 60*time.Second))
	other := mk(spec("other", dag.Profile{IO: 0.3}, 100*time.Second), spec("other2", dag.Profile{IO: 0.3}, 100*time.Second))
	alone := runOne(t, []Job{io}, "static-1")
	r := runOne(t, []Job{io, cpu, other}, "static-1")
	byID := map[string]time.Duration{}
	for _, j := range r.Jobs {
		byID[j.ID] = j.Finish
	}
	if d := byID["io"] - alone.Jobs[0].Finish; d != 12*time.Second {
		t.Errorf("the I/O-bound attempt ended %s later than alone, want 12s (72 s vs 60 s)", d)
	}
	if byID["cpu"] != alone.Jobs[0].Finish {
		t.Errorf("the CPU-only attempt ended at %s, want %s like an unshared 60 s attempt", byID["cpu"], alone.Jobs[0].Finish)
	}
}

// A static cluster full of one group's workers still runs another group's
// bigger worker once room appears. One 10,000 MB node: job a (group g)
// holds two 4000 MB workers for 100 s, leaving 2000 MB; job b, submitted
// at 10 s, needs a 6000 MB worker of its own group. The core asks for it
// once; the cluster is at its cap, so the ask must wait for room (a's
// workers leave after the idle timeout) rather than be dropped, which
// left b pending for ever (the Alibaba 2018 DAG day's 20 GiB worker
// beside static-N's 16 GiB ones).
func TestStaticQueuesWorkerWithNoRoom(t *testing.T) {
	a := job("a", 0, 2, 4000, 100*time.Second, 4000)
	b := job("b", 10*time.Second, 1, 6000, 10*time.Second, 6000)
	b.Spec.Group.Name = "big"
	r := runOne(t, []Job{a, b}, "static-1")
	var aEnd time.Duration
	for _, j := range r.Jobs {
		if !j.Completed {
			t.Fatalf("job %s did not complete", j.ID)
		}
		if j.ID == "a" {
			aEnd = j.Finish
		}
	}
	for _, j := range r.Jobs {
		if j.ID == "b" && j.Finish <= aEnd {
			t.Errorf("b ended at %s, before a (%s) freed the room its worker needs", j.Finish, aEnd)
		}
	}
}
