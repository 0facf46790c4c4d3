package cluster

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/packing"
)

var t0 = time.Unix(0, 0).UTC()

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// fakeNodes is a recording Provider: nodes n1, n2, ... ready delay after
// the request; fail makes the next Provision fail.
type fakeNodes struct {
	delay    time.Duration
	n        int
	fail     error
	released []string
}

func (f *fakeNodes) Provision(now time.Time) (string, time.Time, error) {
	if f.fail != nil {
		err := f.fail
		f.fail = nil
		return "", time.Time{}, err
	}
	f.n++
	return fmt.Sprintf("n%d", f.n), now.Add(f.delay), nil
}

func (f *fakeNodes) Release(now time.Time, id string) error {
	f.released = append(f.released, id)
	return nil
}

// build makes a model of 10 GB nodes with the given options and ready
// nodes.
func build(t *testing.T, o Options, p *fakeNodes, ready int) *Model {
	t.Helper()
	if o.NodeMB == 0 {
		o.NodeMB = 10240
	}
	m, err := New(o, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < ready; i++ {
		if _, err := m.AddReadyNode(t0); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func want(t *testing.T, m *Model, now time.Time, g Group, total int, avoid ...string) []string {
	t.Helper()
	ev, err := m.Want(now, g, total, avoid)
	if err != nil {
		t.Fatal(err)
	}
	return strs(ev)
}

func strs(ev []Event) []string {
	out := []string{}
	for _, e := range ev {
		out = append(out, e.String())
	}
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

var g4 = Group{Name: "g", MemoryMB: 4096, VCores: 1}

// TestPlacement: where the next worker goes, in the order ready nodes with
// room, nodes being provisioned with room, a new node, nothing at the cap.
func TestPlacement(t *testing.T) {
	cases := []struct {
		name  string
		o     Options
		ready int
		total int
		avoid []string
		want  []string
	}{
		{
			// 10240 MB nodes hold two 4096 MB workers (8192, 2048 left):
			// workers 1-2 on n1, 3-4 on n2.
			name: "ready nodes first", ready: 2, total: 4,
			want: []string{"StartWorker w000001 on n1", "StartWorker w000002 on n1", "StartWorker w000003 on n2", "StartWorker w000004 on n2"},
		},
		{
			// One ready node takes two; the third needs a node, ready at
			// 0 + 60 s; the fourth waits on that same node rather than a
			// new one.
			name: "then a node being provisioned", ready: 1, total: 4,
			want: []string{"StartWorker w000001 on n1", "StartWorker w000002 on n1",
				"NodeRequested n2 at 00:01:00.000"},
		},
		{
			// Cap 2: n1 and n2 hold four workers; the fifth is not created.
			name: "the cap", o: Options{MaxNodes: 2}, ready: 1, total: 5,
			want: []string{"StartWorker w000001 on n1", "StartWorker w000002 on n1", "NodeRequested n2 at 00:01:00.000"},
		},
		{
			// n1 is avoided (draining in the AM): both workers go to n2.
			name: "avoid", ready: 2, total: 2, avoid: []string{"n1"},
			want: []string{"StartWorker w000001 on n2", "StartWorker w000002 on n2"},
		},
		{
			// Uniform spreads: n1 and n2 are empty, the first goes to n1
			// (ties to the lowest index), the second to the emptier n2.
			name: "allocator", o: Options{Allocator: mustAlloc(t, "uniform")}, ready: 2, total: 2,
			want: []string{"StartWorker w000001 on n1", "StartWorker w000002 on n2"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &fakeNodes{delay: time.Minute}
			m := build(t, c.o, p, c.ready)
			same(t, "events", want(t, m, t0, g4, c.total, c.avoid...), c.want)
		})
	}
}

func mustAlloc(t *testing.T, name string) packing.Allocator {
	a, err := packing.New(name, packing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestProvisioningDelay: workers on a new node start when it comes up, and
// not before; time only moves through now.
func TestProvisioningDelay(t *testing.T) {
	p := &fakeNodes{delay: 90 * time.Second}
	m := build(t, Options{ReclaimDelay: 30 * time.Second}, p, 0)
	// Two 4096 MB workers fit one 10240 MB node: one request, ready at 90 s.
	same(t, "want", want(t, m, at(10), g4, 2), []string{"NodeRequested n1 at 00:01:40.000"})
	if w, ok := m.Wake(); !ok || !w.Equal(at(100)) {
		t.Errorf("Wake = %s, %v; want 100 s", w.Sub(t0), ok)
	}
	if ev := m.NodeReady(at(99), "n1"); ev != nil {
		t.Errorf("NodeReady at 99 s: %q, want nothing before 10 + 90 s", strs(ev))
	}
	if s, w := m.Count("g"); s != 0 || w != 2 {
		t.Errorf("Count = %d started, %d waiting; want 0, 2", s, w)
	}
	// Up at 100 s: both start, oldest first; the node goes at 100 + 30 s
	// if it is empty then.
	same(t, "ready", strs(m.NodeReady(at(100), "n1")), []string{"NodeReady n1", "StartWorker w000001 on n1",
		"StartWorker w000002 on n1", "NodeEmpty n1 at 00:02:10.000"})
	if ev, _ := m.Reclaim(at(130), "n1"); ev != nil {
		t.Errorf("Reclaim of a busy node: %q", strs(ev))
	}
	if s, w := m.Count("g"); s != 2 || w != 0 {
		t.Errorf("Count = %d started, %d waiting; want 2, 0", s, w)
	}
}

// TestCancelNewestFirst: a lower total cancels waiting workers, newest
// first, and never a started one.
func TestCancelNewestFirst(t *testing.T) {
	p := &fakeNodes{delay: time.Minute}
	m := build(t, Options{}, p, 1)
	// w1, w2 start on n1; w3, w4 wait on n2 (ready at 60 s); w5 waits on n3.
	want(t, m, t0, g4, 5)
	want(t, m, at(1), g4, 3) // cancels w5, then w4
	var ids []string
	for _, w := range m.Workers() {
		ids = append(ids, w.ID+"@"+w.Node)
	}
	same(t, "workers", ids, []string{"w000001@n1", "w000002@n1", "w000003@n2"})
	// Total 1 with two started: only waiting w3 can go.
	want(t, m, at(2), g4, 1)
	if s, w := m.Count("g"); s != 2 || w != 0 {
		t.Errorf("Count = %d started, %d waiting; want 2, 0", s, w)
	}
	// n3 lost its only worker before it came up: it is empty, and goes
	// 0 s after it is up (ReclaimDelay 0), at 60 s.
	ev, _ := m.Tick(at(60))
	same(t, "tick", strs(ev), []string{"NodeReady n2", "NodeEmpty n2 at 00:01:00.000", "NodeReady n3",
		"NodeEmpty n3 at 00:01:00.000", "NodeRemoved n2", "NodeRemoved n3"})
	same(t, "released", p.released, []string{"n2", "n3"})
}

// TestReclaim: an empty node goes after exactly the reclaim delay; a
// worker placed meanwhile keeps it, and the delay restarts when it leaves.
func TestReclaim(t *testing.T) {
	p := &fakeNodes{}
	m := build(t, Options{ReclaimDelay: 30 * time.Second}, p, 1)
	want(t, m, t0, g4, 1)
	m.Stop("w000001")
	// Stopped at 0 s, gone at 10 s: n1 is empty from 10 s, goes at 40 s.
	same(t, "gone", strs(m.Gone(at(10), "w000001")), []string{"NodeEmpty n1 at 00:00:40.000"})
	if w, ok := m.Wake(); !ok || !w.Equal(at(40)) {
		t.Errorf("Wake = %s, %v; want 40 s", w.Sub(t0), ok)
	}
	// A new worker at 20 s takes n1 (ready, with room) ...
	same(t, "again", want(t, m, at(20), g4, 1), []string{"StartWorker w000002 on n1"})
	if ev, _ := m.Reclaim(at(40), "n1"); ev != nil {
		t.Errorf("Reclaim at 40 s of a busy node: %q", strs(ev))
	}
	if _, ok := m.Wake(); ok {
		t.Errorf("Wake with nothing pending: want false")
	}
	// ... and leaves at 50 s: n1 now goes at 80 s, not 79.
	m.Stop("w000002")
	m.Gone(at(50), "w000002")
	if ev, _ := m.Reclaim(at(79), "n1"); ev != nil {
		t.Errorf("Reclaim at 79 s: %q, want nothing before 50 + 30 s", strs(ev))
	}
	ev, err := m.Reclaim(at(80), "n1")
	same(t, "reclaim", strs(ev), []string{"NodeRemoved n1"})
	if err != nil || m.Live() != 0 || !reflect.DeepEqual(p.released, []string{"n1"}) {
		t.Errorf("after reclaim: err %v, %d live, released %q", err, m.Live(), p.released)
	}
}

// TestKeepNodes: with KeepNodes no node is reclaimed; a scaler on top
// removes empty ones with Remove and marks busy ones draining.
func TestKeepNodes(t *testing.T) {
	p := &fakeNodes{}
	m := build(t, Options{KeepNodes: true}, p, 2)
	want(t, m, t0, g4, 1) // w1 on n1
	if ev, _ := m.Tick(at(3600)); len(ev) != 0 || m.Live() != 2 {
		t.Errorf("Tick an hour later: %q, %d live; want nothing, 2", strs(ev), m.Live())
	}
	if _, err := m.Remove(at(1), "n1"); !errors.Is(err, ErrNodeBusy) {
		t.Errorf("Remove a busy node: err %v, want ErrNodeBusy", err)
	}
	if _, err := m.Remove(at(1), "n9"); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("Remove an unknown node: err %v, want ErrUnknownNode", err)
	}
	// w1 leaves a busy node empty: kept, so no NodeEmpty to wait for.
	m.Stop("w000001")
	if ev := m.Gone(at(1), "w000001"); len(ev) != 0 {
		t.Errorf("Gone with KeepNodes: %q, want nothing", strs(ev))
	}
	want(t, m, at(1), g4, 1) // w2 on n1 again
	if ev, err := m.Remove(at(1), "n2"); err != nil || !reflect.DeepEqual(strs(ev), []string{"NodeRemoved n2"}) {
		t.Errorf("Remove n2: %q, %v", strs(ev), err)
	}
	// n1 drains: a second worker (room for one more there) needs n3.
	m.Drain("n1")
	same(t, "after drain", want(t, m, at(2), g4, 2), []string{"NodeRequested n3 at 00:00:02.000", "StartWorker w000003 on n3"})
}

// TestStopHoldsMemory: a stopped worker no longer counts for its group,
// but its memory is taken until its process is gone.
func TestStopHoldsMemory(t *testing.T) {
	p := &fakeNodes{}
	m := build(t, Options{MaxNodes: 1}, p, 1)
	want(t, m, t0, g4, 2) // w1, w2 on n1: 8192 of 10240 MB
	if !m.Stop("w000001") || m.Stop("w000001") {
		t.Errorf("Stop: want true once, then false")
	}
	if s, w := m.Count("g"); s != 1 || w != 0 {
		t.Errorf("after Stop: Count = %d, %d; want 1, 0", s, w)
	}
	// The group wants 2 again: one more is needed (w1 no longer counts),
	// but n1 has 10240 - 8192 = 2048 MB free and the cap is 1 node.
	if got := want(t, m, at(1), g4, 2); len(got) != 0 {
		t.Errorf("want after stop: %q, want nothing", got)
	}
	if n := m.Nodes()[0]; n.UsedMB != 8192 {
		t.Errorf("n1 uses %d MB, want 8192 until w1 is gone", n.UsedMB)
	}
	m.Gone(at(2), "w000001")
	if n := m.Nodes()[0]; n.UsedMB != 4096 {
		t.Errorf("after Gone n1 uses %d MB, want 4096", n.UsedMB)
	}
}

// TestQueueUnplaced: at the cap, a queued worker waits and takes the room
// a gone worker leaves; without the queue it is not created at all.
func TestQueueUnplaced(t *testing.T) {
	for _, queue := range []bool{true, false} {
		p := &fakeNodes{}
		m := build(t, Options{MaxNodes: 1, QueueUnplaced: queue}, p, 1)
		want(t, m, t0, g4, 3) // w1, w2 on n1; w3 has no room
		started, waiting := m.Count("g")
		if wantW := map[bool]int{true: 1, false: 0}[queue]; started != 2 || waiting != wantW {
			t.Errorf("queue %v: Count = %d, %d; want 2, %d", queue, started, waiting, wantW)
		}
		m.Stop("w000001")
		ev := strs(m.Gone(at(5), "w000001"))
		if queue {
			same(t, "queued worker placed", ev, []string{"StartWorker w000003 on n1"})
		} else {
			same(t, "nothing queued", ev, []string{})
		}
	}
}

// TestTooBig: a worker larger than a node is an error, not a new node.
func TestTooBig(t *testing.T) {
	p := &fakeNodes{}
	m := build(t, Options{QueueUnplaced: true}, p, 0)
	_, err := m.Want(t0, Group{Name: "huge", MemoryMB: 20000}, 1, nil)
	var big *TooBigError
	if !errors.As(err, &big) || big.WorkerMB != 20000 || big.NodeMB != 10240 || p.n != 0 {
		t.Errorf("err %v, %d nodes provisioned; want a TooBigError 20000 > 10240 and none", err, p.n)
	}
	if len(m.Workers()) != 0 {
		t.Errorf("a too-big worker was kept: %+v", m.Workers())
	}
}

// TestProviderError: a provider that cannot give a node now is like the
// cap: the worker waits (queued) and is placed on a later tick.
func TestProviderError(t *testing.T) {
	p := &fakeNodes{fail: errors.New("no capacity")}
	m := build(t, Options{QueueUnplaced: true}, p, 0)
	if got := want(t, m, t0, g4, 1); len(got) != 0 {
		t.Errorf("want: %q, want nothing", got)
	}
	ev, _ := m.Tick(at(1))
	same(t, "tick", strs(ev), []string{"NodeRequested n1 at 00:00:01.000", "StartWorker w000001 on n1"})
}

// TestMove: a moved worker counts for its new group.
func TestMove(t *testing.T) {
	m := build(t, Options{}, &fakeNodes{}, 1)
	want(t, m, t0, g4, 1)
	if !m.Move("w000001", "h") || m.Move("nope", "h") {
		t.Errorf("Move: want true for a known worker, false otherwise")
	}
	if s, _ := m.Count("h"); s != 1 {
		t.Errorf("h has %d started workers, want 1", s)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		o    Options
		p    Provider
		want string
	}{
		{Options{NodeMB: 1}, nil, "no Provider"},
		{Options{}, &fakeNodes{}, "NodeMB = 0"},
		{Options{NodeMB: 1, MaxNodes: -1}, &fakeNodes{}, "MaxNodes = -1"},
		{Options{NodeMB: 1, ReclaimDelay: -time.Second}, &fakeNodes{}, "ReclaimDelay = -1s"},
	} {
		if _, err := New(c.o, c.p); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): err %v, want ErrOptions with %q", c.o, err, c.want)
		}
	}
}

// TestReadyBeforeProvisioning: with room on both a ready node and one
// being provisioned, the worker goes to the ready node and starts now.
func TestReadyBeforeProvisioning(t *testing.T) {
	m := build(t, Options{}, &fakeNodes{delay: time.Minute}, 1)
	want(t, m, t0, g4, 3) // w1, w2 on n1; w3 waits on n2 (6144 MB left)
	m.Stop("w000001")
	m.Gone(at(1), "w000001") // n1: 4096 used, 6144 free
	same(t, "w4", want(t, m, at(2), g4, 3), []string{"StartWorker w000004 on n1"})
}
