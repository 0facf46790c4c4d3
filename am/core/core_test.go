package core

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// fakeWorld is a recording fake for the Core's world: it keeps the
// attempts the Core started and the totals it wanted, and lets a test
// finish attempts explicitly.
type fakeWorld struct {
	t       *testing.T
	c       *Core
	now     time.Time
	running map[string]string // attempt -> worker
	wanted  map[string]int
	ended   []DAGStatus
	stopped []string
	moved   []string
	avoid   []string  // the last WantWorkers' avoid list
	drains  []string  // and its draining nodes
	prefer  []string  // and its preferred nodes
	group   GroupInfo // and its group
	logs    []string
	inputs  []AttemptInputs
	amStart []StartAMWorker
	granted []string // attempts let commit
}

// newFake builds a Core from opts, the options opts leaves zero the key
// table's defaults (withDefaults).
func newFake(t *testing.T, opts CoreOptions) *fakeWorld { return newFakeExact(t, withDefaults(opts)) }

// newFakeExact builds a Core from opts as they are.
func newFakeExact(t *testing.T, opts CoreOptions) *fakeWorld {
	c, err := NewCore(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeWorld{t: t, c: c, now: time.Unix(1000, 0), running: map[string]string{}, wanted: map[string]int{}}
}

// fakeWorld is an Executor: drain carries the Core's actions out into it.
var _ Executor = (*fakeWorld)(nil)

func (f *fakeWorld) drain() {
	f.c.Drain(f.now, f)
	f.checkCounts()
}

// checkCounts holds the Core's kept counts to what they count, after
// every drain of every test: the nodes that drain (ndraining) and each
// group's largest room (fits, which mayFit trusts to skip the allocator).
func (f *fakeWorld) checkCounts() {
	f.t.Helper()
	draining := 0
	for _, n := range f.c.nodes {
		if n.draining {
			draining++
		}
	}
	if draining != f.c.ndraining {
		f.t.Fatalf("ndraining = %d, but %d nodes drain", f.c.ndraining, draining)
	}
	for _, g := range f.c.gorder {
		var most int64
		for _, n := range g.pnodes {
			most = max(most, n.FitsMB)
		}
		if most != g.fits.max || len(g.pnodes) == 0 && len(g.fits.count) > 0 {
			f.t.Fatalf("group %s: fits.max = %d (%d values), but its nodes' largest room is %d (%d nodes)", g.info.Name, g.fits.max, len(g.fits.count), most, len(g.pnodes))
		}
		f.checkNodeViews(g)
	}
}

// checkNodeViews holds a group's node bookkeeping to what it mirrors:
// each pnodes entry is found through byNode at its index and through its
// node's groups, and the allocator's index answers as a scan of pnodes.
func (f *fakeWorld) checkNodeViews(g *group) {
	f.t.Helper()
	if len(g.byNode) != len(g.pnodes) {
		f.t.Fatalf("group %s: %d nodes by id, %d in pnodes", g.info.Name, len(g.byNode), len(g.pnodes))
	}
	for i, pn := range g.pnodes {
		gn := g.byNode[pn.ID]
		if gn == nil || gn.i != i || !slices.Contains(gn.node.groups, gn) || len(gn.workers) == 0 {
			f.t.Fatalf("group %s: pnodes[%d] (%s) has view %+v", g.info.Name, i, pn.ID, gn)
		}
	}
	if g.pix == nil {
		return
	}
	for _, mb := range []int64{0, 1, 256, 512, 1024, 2048, 4096} {
		req := packing.Request{MemoryMB: mb}
		want, wantOK := f.c.opts.Allocator.Choose(g.pnodes, req)
		if got, ok, covered := g.pix.Choose(req); covered && (got != want || ok != wantOK) {
			f.t.Fatalf("group %s, %d MB: index chose %d %v, a scan %d %v", g.info.Name, mb, got, ok, want, wantOK)
		}
	}
}

func (f *fakeWorld) WantWorkers(_ time.Time, a WantWorkers) {
	f.wanted[a.Group.Name] = a.Total
	f.avoid = a.Avoid
	f.drains = a.Draining
	f.prefer = a.Prefer
	f.group = a.Group
}
func (f *fakeWorld) RunAttempt(_ time.Time, a RunAttempt)   { f.running[a.Attempt.ID] = a.Worker }
func (f *fakeWorld) KillAttempt(_ time.Time, a KillAttempt) { delete(f.running, a.AttemptID) }
func (f *fakeWorld) GrantCommit(_ time.Time, a GrantCommit) {
	f.granted = append(f.granted, a.AttemptID)
}
func (f *fakeWorld) StopWorker(_ time.Time, a StopWorker) { f.stopped = append(f.stopped, a.Worker) }
func (f *fakeWorld) MoveWorker(_ time.Time, a MoveWorker) { f.moved = append(f.moved, a.Worker) }
func (f *fakeWorld) DAGEnded(_ time.Time, a DAGEnded)     { f.ended = append(f.ended, a.DAG) }
func (f *fakeWorld) Log(_ time.Time, a Log)               { f.logs = append(f.logs, a.Msg) }
func (f *fakeWorld) AttemptInputs(_ time.Time, a AttemptInputs) {
	f.inputs = append(f.inputs, a)
}
func (f *fakeWorld) StartAMWorker(_ time.Time, a StartAMWorker) { f.amStart = append(f.amStart, a) }

func (f *fakeWorld) tick(d time.Duration) {
	f.now = f.now.Add(d)
	f.c.Tick(f.now)
	f.drain()
}

func (f *fakeWorld) submit(spec string) string {
	s, err := dag.Parse("test.yaml", []byte(spec))
	if err != nil {
		f.t.Fatal(err)
	}
	id, err := f.c.SubmitDAG(f.now, Submission{Spec: s})
	if err != nil {
		f.t.Fatal(err)
	}
	f.drain()
	return id
}

func (f *fakeWorld) addWorker(id, group, node string, mb int64) {
	if err := f.c.WorkerRegistered(f.now, WorkerInfo{ID: id, Group: group, Node: node, NodeMB: 4 * mb, MemoryMB: mb, Address: id + ":1"}); err != nil {
		f.t.Fatal(err)
	}
	f.drain()
}

// finishAll completes every running attempt successfully, one round.
func (f *fakeWorld) finishAll() int {
	ids := sortedKeys(f.running)
	for _, id := range ids {
		delete(f.running, id)
		f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
	}
	f.drain()
	return len(ids)
}

const diamond = `
name: diamond
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: src, command: "true", parallelism: 3, memoryMB: 256}
  - {name: left, command: "true", parallelism: 2, memoryMB: 256}
  - {name: right, command: "true", parallelism: 3, memoryMB: 256}
  - {name: sink, command: "true", parallelism: 1, memoryMB: 256}
edges:
  - {from: src, to: left, type: scatter-gather}
  - {from: src, to: right, type: one-to-one}
  - {from: left, to: sink, type: broadcast}
  - {from: right, to: sink, type: scatter-gather}
`

func TestDiamondRunsInOrder(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(diamond)
	// 3 src tasks x 256 MB queued, 1024 MB workers: one worker wanted.
	if f.wanted["g"] != 1 {
		t.Fatalf("wanted %d workers, want 1", f.wanted["g"])
	}
	f.addWorker("w1", "g", "n1", 1024)
	var rounds []int
	for i := 0; i < 10 && len(f.running) > 0; i++ {
		rounds = append(rounds, f.finishAll())
	}
	// src (3 fit in 1024 MB), then left 2 + right 3 = 5 ready but only 4
	// fit, then the last one, then sink.
	if fmt.Sprint(rounds) != "[3 4 1 1]" {
		t.Fatalf("rounds %v, want [3 4 1 1]", rounds)
	}
	if len(f.ended) != 1 || f.ended[0].ID != id || f.ended[0].State != DAGSucceeded {
		t.Fatalf("ended %+v", f.ended)
	}
}

func TestInputsFollowEdgeTypes(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(diamond)
	f.addWorker("w1", "g", "n1", 4096)
	f.finishAll() // src
	specs := map[string]AttemptSpec{}
	for id := range f.running {
		a := f.c.attempt[id]
		specs[a.task.vertex.spec.Name+fmt.Sprint(a.task.index)] = f.c.attemptSpec(a)
	}
	// left task 1 reads partition 1 of all 3 src tasks (scatter-gather).
	l1 := specs["left1"]
	if len(l1.Inputs) != 3 || l1.Inputs[2].Partition != 1 || l1.Inputs[2].ProducerTask != 2 {
		t.Fatalf("left1 inputs %+v", l1.Inputs)
	}
	// right task 2 reads only src task 2 (one-to-one), partition 0.
	r2 := specs["right2"]
	if len(r2.Inputs) != 1 || r2.Inputs[0].ProducerTask != 2 || r2.Inputs[0].Partition != 0 {
		t.Fatalf("right2 inputs %+v", r2.Inputs)
	}
	// src writes 2 partitions for left and 1 for right.
	f.finishAll()
	f.finishAll()
	for id := range f.running {
		s := f.c.attemptSpec(f.c.attempt[id])
		if s.Vertex == "sink" && (len(s.Inputs) != 5 || s.CommitDir != "") {
			t.Fatalf("sink inputs %+v", s.Inputs)
		}
	}
}

func TestLostWorkerRecomputesNeededOutputs(t *testing.T) {
	f := newFake(t, CoreOptions{})
	id := f.submit(diamond)
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	f.finishAll() // 2 src tasks, one per worker... placement decides
	f.finishAll()
	// Lose every worker holding outputs while left/right still need them.
	f.c.WorkerLost(f.now, "w1", "killed")
	f.drain()
	st, _ := f.c.DAG(id)
	if st.State != DAGRunning {
		t.Fatalf("state %v", st.State)
	}
	f.addWorker("w3", "g", "n3", 1024)
	for i := 0; i < 20 && len(f.running) > 0; i++ {
		f.finishAll()
	}
	st, _ = f.c.DAG(id)
	if st.State != DAGSucceeded {
		t.Fatalf("after losing w1: %v %s (running %v)", st.State, st.Diagnostics, f.running)
	}
}

func TestRetriesThenFails(t *testing.T) {
	f := newFake(t, CoreOptions{MaxFailedAttempts: 2})
	id := f.submit(`
name: one
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "false", parallelism: 1, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 512)
	for i := 0; i < 2; i++ {
		for a := range f.running {
			delete(f.running, a)
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: a, Result: AttemptFailed, ExitCode: 1, Diagnostics: "boom"})
		}
		f.drain()
	}
	st, _ := f.c.DAG(id)
	if st.State != DAGFailed || !strings.Contains(st.Diagnostics, "failed 2 times") || !strings.Contains(st.Diagnostics, "boom") {
		t.Fatalf("got %v %q", st.State, st.Diagnostics)
	}
}

func TestGroupConflictRejected(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(diamond)
	s, _ := dag.Parse("x.yaml", []byte(`
name: other
containerGroup: {name: g, workerMemoryMB: 2048}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`))
	_, err := f.c.SubmitDAG(f.now, Submission{Spec: s})
	// The one conflict type, scheduler's, through the SubmitError that
	// names the DAG.
	var conflict *scheduler.GroupConflictError
	if !errors.As(err, &conflict) || conflict.Name != "g" || fmt.Sprint(conflict.Differs) != "[workerMemoryMB]" {
		t.Fatalf("err = %v, want a *scheduler.GroupConflictError for g's workerMemoryMB", err)
	}
	// Both property sets, the owner, and the ways out.
	for _, want := range []string{`DAG other rejected: containerGroup "g" is in use by dag_0001 with workerMemoryMB=1024, workerVCores=1`,
		"this DAG asks for workerMemoryMB=2048, workerVCores=1", "name another group", "wait for (or kill) the DAGs using it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q, want it to contain %q", err, want)
		}
	}
}

func TestConcurrencyLimitQueuesDAGs(t *testing.T) {
	f := newFake(t, CoreOptions{MaxConcurrentDAGs: 1})
	a := f.submit(diamond)
	b := f.submit(strings.Replace(diamond, "name: diamond", "name: diamond2", 1))
	sa, _ := f.c.DAG(a)
	sb, _ := f.c.DAG(b)
	if sa.State != DAGRunning || sb.State != DAGSubmitted {
		t.Fatalf("states %v %v", sa.State, sb.State)
	}
	f.addWorker("w1", "g", "n1", 4096)
	for i := 0; i < 20 && len(f.running) > 0; i++ {
		f.finishAll()
	}
	if len(f.ended) != 2 {
		t.Fatalf("ended %d DAGs", len(f.ended))
	}
}

func TestIdleWorkerStopped(t *testing.T) {
	f := newFake(t, CoreOptions{IdleTimeout: time.Minute})
	f.submit(`
name: one
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`)
	f.addWorker("w1", "g", "n1", 512)
	f.finishAll()
	f.tick(59 * time.Second)
	if len(f.stopped) != 0 {
		t.Fatal("stopped too early")
	}
	f.tick(time.Second)
	if len(f.stopped) != 1 {
		t.Fatal("idle worker not stopped after the idle timeout")
	}
}

// With packed allocation the core names the nodes new workers should go
// to: the medium node it already uses, before any other.
func TestPackedPrefersUsedNodes(t *testing.T) {
	alloc, err := packing.New("packed", packing.Options{HighThresholdPercent: 100, MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, CoreOptions{Allocator: alloc})
	f.submit(`
name: p
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 1024}]
`)
	f.addWorker("w1", "g", "n1", 1024) // n1: 4096 MB, 1024 used
	p := f.c.preferNodes(f.c.groups["g"], 3)
	// n1 has 3072 MB free: all three new 1024 MB workers fit there.
	if strings.Join(p, ",") != "n1,n1,n1" {
		t.Fatalf("prefer %v, want n1 three times", p)
	}
	p = f.c.preferNodes(f.c.groups["g"], 4)
	if strings.Join(p, ",") != "n1,n1,n1," {
		t.Fatalf("prefer %v, want n1 three times then anywhere", p)
	}
}

// seedOf is hash/fnv's 64-bit FNV-1a written out: the allocator's
// tie-breaks (and so every placement a seed decides) stay as they were.
func TestSeedOfIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "g", "dag_0001_map_000042_0", strings.Repeat("x", 300)} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := seedOf(s), h.Sum64(); got != want {
			t.Errorf("seedOf(%q) = %d, want FNV-1a %d", s, got, want)
		}
	}
}
