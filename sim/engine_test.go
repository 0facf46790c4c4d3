package sim

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/internal/traces"
	"github.com/ebb-am/ebb/sim/cloud"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// testConfig: 10,000 MB nodes that take 100 s to provision, given back
// 10 s after they empty, workers up 0 s after their node, a 1 s tick.
func testConfig() Config {
	c := cloud.DefaultConfig()
	c.Types = []cloud.NodeType{{Name: "n", MemoryMB: 10000, VCores: 8, PricePerHour: 3.6}}
	c.ProvisionDelay = 100 * time.Second
	c.ReclaimDelay = 10 * time.Second
	return Config{Cloud: c, Tick: time.Second, SampleEvery: time.Minute}
}

func job(id string, submit time.Duration, tasks int, mb int64, d time.Duration, workerMB int64) Job {
	return Job{ID: id, Submit: submit, Spec: &dag.Spec{
		Name:     id,
		Group:    dag.GroupSpec{Name: "g", WorkerMemoryMB: workerMB, WorkerVCores: 1},
		Vertices: []dag.VertexSpec{{Name: "v", Command: dag.Command{"sim"}, Parallelism: tasks, MemoryMB: mb, SimDurations: []dag.Duration{dag.Duration(d)}}},
	}}
}

func runOne(t *testing.T, jobs []Job, policy string) report.Run {
	t.Helper()
	return runWith(t, jobs, policy, testConfig())
}

func runWith(t *testing.T, jobs []Job, policy string, cfg Config) report.Run {
	t.Helper()
	p, err := ParsePolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Run(jobs, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Run()
}

// Node-seconds computed by hand, on-demand scaling (static-N would keep
// nodes; spark-da is on-demand with a ramp; use k8s-ca's cousin: the
// policies below give empty nodes back after the reclaim delay).
func TestHandMadeNodeSeconds(t *testing.T) {
	cases := []struct {
		name   string
		jobs   []Job
		policy string
		want   float64
	}{
		// One job, one 1000 MB task of 50 s, on an empty cluster, spark-da:
		// the backlog lasts 1 s, so a worker is asked for at t=1 and its
		// node requested then (billing starts); ready at 101, the worker
		// registers at once, the task runs 101..151, and the run ends with
		// the job at 151. Node-seconds: 151 - 1 = 150.
		{"one job", []Job{job("a", 0, 1, 1000, 50*time.Second, 1000)}, "spark-da", 150},
		// Two jobs that fit on one node (4000 MB workers, 10000 MB nodes),
		// both at 0: one worker at t=1 (node requested), the ramp's second
		// at t=2 goes on the same node, still provisioning (6000 MB free);
		// both tasks run 101..151. Node-seconds: 150, not 2 x 150.
		{"two jobs one node", []Job{job("a", 0, 1, 4000, 50*time.Second, 4000), job("b", 0, 1, 4000, 50*time.Second, 4000)}, "spark-da", 150},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runOne(t, c.jobs, c.policy)
			for _, j := range r.Jobs {
				if !j.Completed {
					t.Fatalf("job %s did not complete", j.ID)
				}
			}
			if r.NodeSeconds != c.want {
				t.Fatalf("node-seconds %.1f, want %.1f", r.NodeSeconds, c.want)
			}
		})
	}
}

// A burst that needs a scale-out: on a static 1-node cluster the burst
// queues; with scaling, more nodes come and the makespan shrinks.
func TestBurstScalesOut(t *testing.T) {
	var jobs []Job
	for i := 0; i < 6; i++ {
		jobs = append(jobs, job(fmt.Sprintf("j%d", i), 0, 2, 2500, 300*time.Second, 5000))
	}
	static := runOne(t, jobs, "static-1")
	elastic := runOne(t, jobs, "spark-da")
	last := func(r report.Run) time.Duration {
		var m time.Duration
		for _, j := range r.Jobs {
			m = max(m, j.Finish)
		}
		return m
	}
	// static-1: the node exists from the start; 12 tasks of 2500 MB in
	// 5000 MB workers, 4 at a time on the 10000 MB node: 3 waves of 300 s,
	// the last ends at 900 s.
	if got := last(static); got != 900*time.Second {
		t.Errorf("static-1 makespan %s, want 900s", got)
	}
	peak := 0
	for _, s := range elastic.Samples {
		peak = max(peak, s.Nodes)
	}
	if peak < 3 || last(elastic) >= last(static) {
		t.Errorf("spark-da peaked at %d nodes with makespan %s: want a scale-out to >= 3 nodes and a shorter run than static-1 (%s)", peak, last(elastic), last(static))
	}
}

// A worker bigger than any node is a clear error, not a run that waits
// forever.
func TestWorkerBiggerThanNode(t *testing.T) {
	p, _ := ParsePolicy("spark-da")
	_, err := Run([]Job{job("big", 0, 1, 12000, time.Second, 12000)}, testConfig(), p)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("12000 MB workers, more than a 10000 MB node")) {
		t.Fatalf("err = %v", err)
	}
}

// Two runs with the same seed give byte-identical JSON.
func TestDeterministicJSON(t *testing.T) {
	jobs, err := trace.Read(traces.Path(t, "swim_facebook/FB-2009_samples_24_times_1hr_0.tsv"), "", trace.Options{WindowLength: 2 * time.Hour, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	out := func() []byte {
		var runs []report.Run
		for _, p := range []string{"static-10", "mr3", "ebb", "spark-da", "k8s-ca"} {
			runs = append(runs, runWith(t, jobs, p, DefaultConfig()))
		}
		var b bytes.Buffer
		if err := report.Summarize(runs, "static").WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := out(), out()
	if !bytes.Equal(a, b) {
		t.Fatalf("two runs differ:\n%s\n---\n%s", a, b)
	}
}

// Contention: two attempts at cpu 0.75 on one node ask for 1.5 of its
// CPU, so each runs at 1/1.5 speed: 60 s of work takes 90 s. Alone, the
// same attempt takes its 60 s.
func TestContentionSlowsOverpackedNodes(t *testing.T) {
	mk := func(tasks int) []Job {
		j := job("c", 0, tasks, 1000, 60*time.Second, 10000)
		j.Spec.Vertices[0].Profile = &dag.Profile{CPU: 0.75, Memory: 0.1, IO: 0.1}
		return []Job{j}
	}
	finish := func(r report.Run) time.Duration { return r.Jobs[0].Finish }
	// static-1: the node and a 10000 MB worker exist at once; both 1000 MB
	// attempts start at the first placement.
	alone := runOne(t, mk(1), "static-1")
	both := runOne(t, mk(2), "static-1")
	if d := finish(both) - finish(alone); d != 30*time.Second {
		t.Fatalf("two attempts at cpu 0.75 ended %s after one alone, want 30s (90 s vs 60 s)", d)
	}
}

// BenchmarkFBDay runs the whole FB-2009 day (file 0) under the five
// policies of the issue, as `ebb sim` does.
func BenchmarkFBDay(b *testing.B) {
	jobs, err := trace.Read(traces.Path(b, "swim_facebook/FB-2009_samples_24_times_1hr_0.tsv"), "", trace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		for _, name := range []string{"static-40", "mr3", "spark-da", "k8s-ca", "ebb"} {
			p, _ := ParsePolicy(name)
			if _, err := Run(jobs, DefaultConfig(), p); err != nil {
				b.Fatal(err)
			}
		}
	}
}
