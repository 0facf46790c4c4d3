package local

import (
	"github.com/ebb-am/ebb/am/amconf"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// The test binary doubles as the worker executable: a group's Env sets
// EBB_FAKE_WORKER, which the world passes to the process it starts.
// "sleep" writes its arguments to <work-dir>/args and waits to be killed;
// "exit" exits at once with status 3.
func TestMain(m *testing.M) {
	switch os.Getenv("EBB_FAKE_WORKER") {
	case "":
		os.Exit(m.Run())
	case "exit":
		os.Exit(3)
	default:
		for i, a := range os.Args {
			if a == "--work-dir" && i+1 < len(os.Args) {
				if err := os.WriteFile(filepath.Join(os.Args[i+1], "args"), []byte(strings.Join(os.Args[1:], " ")), 0o644); err != nil {
					os.Exit(2) // the test waiting for the file says so
				}
			}
		}
		time.Sleep(2 * time.Minute) // the test's Close kills it long before
		os.Exit(0)
	}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func group(name string, mb int64, mode string) core.GroupInfo {
	return core.GroupInfo{Name: name, MemoryMB: mb, VCores: 1, Env: map[string]string{"EBB_FAKE_WORKER": mode}}
}

// harness is a world whose posts (process exits) queue up for the test to
// run at a now of its choosing, with a real Core to receive them.
type harness struct {
	t     *testing.T
	w     *World
	core  *core.Core
	posts chanSender
}

// chanSender queues the world's events for the test.
type chanSender chan core.Event

func (c chanSender) Send(ev core.Event) { c <- ev }

func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	h := &harness{t: t, posts: make(chanSender, 64)}
	c, err := core.NewCore(amconf.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	h.core = c
	log := logrus.New()
	log.Out = io.Discard
	if o.Executable == "" {
		o.Executable = os.Args[0]
	}
	o.Root, o.Log, o.AMAddress, o.Secret = t.TempDir(), log, "127.0.0.1:1", "s"
	o.Events = h.posts
	w, err := New(o, t0)
	if err != nil {
		t.Fatal(err)
	}
	h.w = w
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return h
}

// exit runs the next process-exit post at now, waiting at most 10 s for it.
func (h *harness) exit(now time.Time) {
	h.t.Helper()
	select {
	case ev := <-h.posts:
		// As the loop does: the world hears of the exit, then the Core.
		if g, ok := ev.(core.WorkerGone); ok && g.Exited {
			h.w.WorkerExited(now, g.Worker)
		}
		h.core.Apply(now, ev)
	case <-time.After(10 * time.Second):
		h.t.Fatal("no worker exit reported within 10 s")
	}
}

// kill ends a started worker's process group, as the worker exiting would.
func (h *harness) kill(worker string) {
	h.t.Helper()
	pid, ok := h.w.PID(worker)
	if !ok {
		h.t.Fatalf("worker %s has no process", worker)
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		h.t.Fatalf("killing worker %s (pid %d): %v", worker, pid, err)
	}
}

// layout is each node as "id:ready:workers", e.g. "local-node-01:up:worker-0001,worker-0002".
func (h *harness) layout() []string {
	var out []string
	for _, n := range h.w.Nodes() {
		state := "up"
		if !n.Ready {
			state = "coming"
		}
		out = append(out, n.ID+":"+state+":"+strings.Join(n.Workers, ","))
	}
	return out
}

func (h *harness) expect(what string, want ...string) {
	h.t.Helper()
	if got := h.layout(); !reflect.DeepEqual(got, want) {
		h.t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// args waits (10 s at most) for a started fake worker to write its
// command line.
func (h *harness) args(worker string) string {
	h.t.Helper()
	f := filepath.Join(h.w.o.Root, "workers", worker, "args")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(f); err == nil && len(b) > 0 {
			return string(b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("worker %s wrote no args within 10 s", worker)
	return ""
}

// TestNodesUpToCap: a group wanting 5 workers of 4096 MB on 8192 MB nodes
// (two a node) fills the one node there is, provisions a second (the cap),
// and queues the fifth. Only workers on the ready node get processes.
func TestNodesUpToCap(t *testing.T) {
	h := newHarness(t, Options{Nodes: 1, MaxNodes: 2, NodeMB: 8192, ProvisionDelay: 30 * time.Second, IdleNodeTime: time.Hour})
	h.w.WantWorkers(t0, core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 5})
	h.expect("after want", "local-node-01:up:worker-0001,worker-0002", "local-node-02:coming:worker-0003,worker-0004")
	if p, _ := h.w.Started(); p != 2 {
		t.Errorf("%d processes started, want 2", p)
	}
	if a := h.args("worker-0001"); !strings.Contains(a, "--node local-node-01") || !strings.Contains(a, "--memory-mb 4096") || !strings.Contains(a, "--group g") {
		t.Errorf("worker-0001 args %q: want --node local-node-01 --memory-mb 4096 --group g", a)
	}
}

// TestProvisioningDelay: the second node comes up 30 s after it was asked
// for, seen only through the now passed to Tick.
func TestProvisioningDelay(t *testing.T) {
	h := newHarness(t, Options{Nodes: 1, MaxNodes: 2, NodeMB: 8192, ProvisionDelay: 30 * time.Second, IdleNodeTime: time.Hour})
	h.w.WantWorkers(sec(5), core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 4})
	// Asked for at 5 s: up at 35 s.
	if at, ok := h.w.Wake(); !ok || !at.Equal(sec(35)) {
		t.Errorf("Wake = %s, %v; want 35 s", at.Sub(t0), ok)
	}
	h.w.Tick(sec(34), core.Summary{})
	h.expect("at 34 s", "local-node-01:up:worker-0001,worker-0002", "local-node-02:coming:worker-0003,worker-0004")
	h.w.Tick(sec(35), core.Summary{})
	h.expect("at 35 s", "local-node-01:up:worker-0001,worker-0002", "local-node-02:up:worker-0003,worker-0004")
	if p, _ := h.w.Started(); p != 4 {
		t.Errorf("%d processes started, want 4", p)
	}
	if a := h.args("worker-0004"); !strings.Contains(a, "--node local-node-02") {
		t.Errorf("worker-0004 args %q: want --node local-node-02", a)
	}
}

// TestIdleNodeRemoved: a node goes IdleNodeTime after its last worker's
// process exited, not before, and its name is not reused.
func TestIdleNodeRemoved(t *testing.T) {
	h := newHarness(t, Options{Nodes: 2, MaxNodes: 3, NodeMB: 8192, IdleNodeTime: 10 * time.Second})
	h.w.WantWorkers(t0, core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 1})
	// local-node-02 is empty from 0 s: it goes at 10 s; 01 keeps its worker.
	h.w.Tick(sec(9), core.Summary{})
	h.expect("at 9 s", "local-node-01:up:worker-0001", "local-node-02:up:")
	h.w.Tick(sec(10), core.Summary{})
	h.expect("at 10 s", "local-node-01:up:worker-0001")
	// The worker is stopped and exits at 20 s: 01 goes at 30 s.
	h.w.WorkerStopped(sec(15), "worker-0001")
	h.kill("worker-0001")
	h.exit(sec(20))
	h.w.Tick(sec(29), core.Summary{})
	h.expect("at 29 s", "local-node-01:up:")
	h.w.Tick(sec(30), core.Summary{})
	h.expect("at 30 s")
	// A new worker needs a new node, named after the last.
	h.w.WantWorkers(sec(31), core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 1})
	h.expect("at 31 s", "local-node-03:up:worker-0002")
}

// TestDrainingNodeGetsNoWorker: nodes the core drains (Avoid) get no new
// worker, even when they are the emptiest or the first.
func TestDrainingNodeGetsNoWorker(t *testing.T) {
	h := newHarness(t, Options{Nodes: 2, MaxNodes: 2, NodeMB: 8192, IdleNodeTime: time.Hour})
	h.w.WantWorkers(t0, core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 2, Avoid: []string{"local-node-01"}})
	h.expect("avoiding 01", "local-node-01:up:", "local-node-02:up:worker-0001,worker-0002")
	// 02 is full and 01 drains: the third waits, as at the cap.
	h.w.WantWorkers(sec(1), core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 3, Avoid: []string{"local-node-01"}})
	h.expect("third waits", "local-node-01:up:", "local-node-02:up:worker-0001,worker-0002")
}

// TestStoppedWorkerFreesMemoryOnExit: a stopped worker's memory is taken
// until its process exits; then the worker waiting at the cap starts there.
func TestStoppedWorkerFreesMemoryOnExit(t *testing.T) {
	h := newHarness(t, Options{Nodes: 1, MaxNodes: 1, NodeMB: 8192, IdleNodeTime: time.Hour})
	g := group("g", 4096, "sleep")
	h.w.WantWorkers(t0, core.WantWorkers{Group: g, Total: 2})
	h.w.WorkerStopped(sec(1), "worker-0001")
	h.w.WantWorkers(sec(1), core.WantWorkers{Group: g, Total: 2}) // worker-0003 replaces it, no room yet
	h.expect("stopped, not exited", "local-node-01:up:worker-0001,worker-0002")
	h.kill("worker-0001")
	h.exit(sec(2))
	h.expect("exited", "local-node-01:up:worker-0002,worker-0003")
	if p, _ := h.w.Started(); p != 3 {
		t.Errorf("%d processes started, want 3", p)
	}
	if _, ok := h.w.PID("worker-0001"); ok {
		t.Errorf("worker-0001 still has a process after its exit")
	}
}

// TestUnexpectedExit: a worker that dies on its own frees its node and is
// reported to the core; the core will ask again.
func TestUnexpectedExit(t *testing.T) {
	h := newHarness(t, Options{Nodes: 1, MaxNodes: 1, NodeMB: 8192, IdleNodeTime: time.Hour})
	h.w.WantWorkers(t0, core.WantWorkers{Group: group("g", 4096, "exit"), Total: 1})
	h.exit(sec(1))
	h.expect("after exit", "local-node-01:up:")
	h.w.WantWorkers(sec(2), core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 1})
	h.expect("asked again", "local-node-01:up:worker-0002")
}

// TestStartFailure: a worker whose process cannot start gives its room
// back at once.
func TestStartFailure(t *testing.T) {
	h := newHarness(t, Options{Nodes: 1, MaxNodes: 1, NodeMB: 8192, IdleNodeTime: time.Hour,
		Executable: filepath.Join(t.TempDir(), "no-such-ebb")})
	h.w.WantWorkers(t0, core.WantWorkers{Group: group("g", 4096, "sleep"), Total: 1})
	h.expect("after a failed start", "local-node-01:up:")
	if p, _ := h.w.Started(); p != 0 {
		t.Errorf("%d processes started, want 0", p)
	}
}

func TestNewRejects(t *testing.T) {
	for _, o := range []Options{
		{Nodes: 1, MaxNodes: 0, NodeMB: 8192},
		{Nodes: 1, MaxNodes: 1, NodeMB: 0},
		{Nodes: 3, MaxNodes: 2, NodeMB: 8192},
	} {
		if _, err := New(o, t0); err == nil || !strings.Contains(err.Error(), "ebb.local.") {
			t.Errorf("New(%+v): err %v, want one naming the ebb.local key", o, err)
		}
	}
}

// Issue 23, item 5: local nodes' resource types place workers. Two 8192
// MB nodes with one GPU each, a cap of two: three 1024 MB workers of a
// group asking one GPU each (memory alone would put them all on one node)
// get one per node and the third waits; a DAG asking two GPUs per worker
// is refused at submit naming the field and the nodes' count.
func TestNodeTypesPlaceWorkers(t *testing.T) {
	h := newHarness(t, Options{Nodes: 2, MaxNodes: 2, NodeMB: 8192, NodeTypes: map[string]int64{"yarn.io/gpu": 1}, IdleNodeTime: time.Hour})
	g := group("g", 1024, "sleep")
	g.Resources = map[string]int64{"yarn.io/gpu": 1}
	h.w.WantWorkers(t0, core.WantWorkers{Group: g, Total: 3})
	h.expect("GPU workers", "local-node-01:up:worker-0001", "local-node-02:up:worker-0002")
	spec, err := dag.Parse("d.yaml", []byte("name: d\ncontainerGroup: {name: g, workerMemoryMB: 1024}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 512, resources: {yarn.io/gpu: 2}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.w.CheckSpec(spec); err == nil || !strings.Contains(err.Error(), "vertices[0].resources.yarn.io/gpu: 2 (vertex v)") || !strings.Contains(err.Error(), "(yarn.io/gpu: 1)") {
		t.Errorf("two GPUs on nodes of one: %v, want a refusal naming the vertex's field and the nodes' 1", err)
	}
}
