package yarn

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/hadooppb"
	"google.golang.org/protobuf/proto"
)

// recordSender keeps every event the world sends.
type recordSender struct {
	mu  sync.Mutex
	evs []core.Event
}

func (r *recordSender) Send(e core.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

// An updated node report read from the wire keeps its state and the
// decommissioning timeout (field 13, seconds).
func TestNodeReportReadsStateAndDecommissioningTimeout(t *testing.T) {
	p := &hadooppb.NodeReportProto{
		NodeId:                 &hadooppb.NodeIdProto{Host: proto.String("127.0.0.2"), Port: proto.Int32(45454)},
		Capability:             &hadooppb.ResourceProto{Memory: proto.Int64(4096), VirtualCores: proto.Int32(4)},
		NodeState:              hadooppb.NodeStateProto_NS_DECOMMISSIONING.Enum(),
		DecommissioningTimeout: proto.Uint32(120),
	}
	b, err := proto.Marshal(&hadooppb.AllocateResponseProto{UpdatedNodes: []*hadooppb.NodeReportProto{p}})
	if err != nil {
		t.Fatal(err)
	}
	var r hadooppb.AllocateResponseProto
	if err := proto.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	got := nodeReportFrom(r.GetUpdatedNodes()[0])
	if got.Node != "127.0.0.2:45454" || got.State != core.NodeDecommissioning || got.DrainTimeout != 2*time.Minute || got.Running {
		t.Errorf("read %+v, want 127.0.0.2:45454 DECOMMISSIONING with a 2m timeout", got)
	}
	for ps, want := range map[hadooppb.NodeStateProto]core.NodeState{
		hadooppb.NodeStateProto_NS_RUNNING: core.NodeRunning, hadooppb.NodeStateProto_NS_UNHEALTHY: core.NodeUnhealthy,
		hadooppb.NodeStateProto_NS_LOST: core.NodeLost, hadooppb.NodeStateProto_NS_DECOMMISSIONED: core.NodeDecommissioned,
	} {
		if s := nodeStateFrom(ps); s != want {
			t.Errorf("%s read as %s, want %s", ps, s, want)
		}
	}
}

// The world hands each updated node of an allocate response to the Core
// as a NodeChanged event.
func TestWorldSendsUpdatedNodesToTheCore(t *testing.T) {
	h := newHarness(t)
	rec := &recordSender{}
	h.w.o.Events = rec
	h.rm.script = []fakeAnswer{{resp: AllocateResponse{ResponseID: 1, UpdatedNodes: []NodeReport{
		{Node: "n1:1", MemoryMB: 4096, State: core.NodeDecommissioning, DrainTimeout: 2 * time.Minute},
		{Node: "n2:1", MemoryMB: 8192, State: core.NodeRunning, Running: true},
	}}}}
	if err := h.w.beat(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []core.Event{
		core.NodeChanged{Node: core.ClusterNode{ID: "n1:1", CapacityMB: 4096}, State: core.NodeDecommissioning, DrainTimeout: 2 * time.Minute},
		core.NodeChanged{Node: core.ClusterNode{ID: "n2:1", CapacityMB: 8192}, State: core.NodeRunning},
	}
	if !reflect.DeepEqual(rec.evs, want) {
		t.Errorf("sent %+v\nwant %+v", rec.evs, want)
	}
}

// A node report's used memory less this AM's containers there is what
// others hold (the AM's own container, other applications'): the Core
// packs around it. At the start and in an updated node alike.
func TestWorldReportsOthersMemory(t *testing.T) {
	h := newHarness(t)
	rec := &recordSender{}
	h.w.o.Events = rec
	h.w.o.Nodes = []NodeReport{{Node: "n1:1", MemoryMB: 4096, UsedMB: 256, Running: true}, {Node: "n2:1", MemoryMB: 8192, Running: true}}
	h.w.reportNodes()
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 1})
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 1, Allocated: []Container{ctr(2, 1, "n2:1")}, NMTokens: []NMToken{tok("n2:1")}}},
		{resp: AllocateResponse{ResponseID: 2, UpdatedNodes: []NodeReport{
			{Node: "n2:1", MemoryMB: 8192, UsedMB: small.MemoryMB + 2048, State: core.NodeRunning, Running: true},
		}}},
	}
	h.beat(t)
	h.beat(t)
	want := []core.Event{
		core.NodesReported{Nodes: []core.ClusterNode{{ID: "n1:1", CapacityMB: 4096, OthersMB: 256}, {ID: "n2:1", CapacityMB: 8192}}},
		core.NodeChanged{Node: core.ClusterNode{ID: "n2:1", CapacityMB: 8192, OthersMB: 2048}, State: core.NodeRunning},
	}
	var got []core.Event
	for _, ev := range rec.evs {
		switch ev.(type) {
		case core.NodesReported, core.NodeChanged:
			got = append(got, ev)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sent %+v\nwant %+v", got, want)
	}
}
