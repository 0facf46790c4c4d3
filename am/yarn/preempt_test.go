package yarn

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Both contracts are read: the strict one's containers, the negotiable
// one's containers and its resource (2 x 1024 MB = 2048 MB).
func TestPreemptionFromProto(t *testing.T) {
	pc := func(n int64) *hadooppb.PreemptionContainerProto {
		return &hadooppb.PreemptionContainerProto{Id: containerIDProto(cid(n))}
	}
	msg := &hadooppb.PreemptionMessageProto{
		StrictContract: &hadooppb.StrictPreemptionContractProto{Container: []*hadooppb.PreemptionContainerProto{pc(2)}},
		Contract: &hadooppb.PreemptionContractProto{
			Container: []*hadooppb.PreemptionContainerProto{pc(3), pc(4)},
			Resource: []*hadooppb.PreemptionResourceRequestProto{{Resource: &hadooppb.ResourceRequestProto{
				Capability: resourceProto(Resource{MemoryMB: 1024, VCores: 1}), NumContainers: proto.Int32(2)}}},
		},
	}
	want := &Preemption{Strict: []ContainerID{cid(2)}, Negotiable: []ContainerID{cid(3), cid(4)}, NegotiableMB: 2048}
	if got := preemptionFrom(msg); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := preemptionFrom(&hadooppb.PreemptionMessageProto{}); got != nil {
		t.Errorf("an empty message: %+v, want nil", got)
	}
}

type recSender struct {
	mu  sync.Mutex
	evs []core.Event
}

func (r *recSender) Send(e core.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

// Every allocate's warning reaches the Core; the headroom only when it
// changes; a container that ends with -102 is reported preempted.
func TestWorldSendsPreemption(t *testing.T) {
	h := newHarness(t)
	rec := &recSender{}
	h.w.o.Events = rec
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 2})
	warn := &Preemption{Negotiable: []ContainerID{cid(3)}, NegotiableMB: 512}
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 1, Allocated: []Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1")}, NMTokens: []NMToken{tok("n1:1"), tok("n2:1")},
			Limit: &Resource{MemoryMB: 1024}}},
		{resp: AllocateResponse{ResponseID: 2, Preempt: warn, Limit: &Resource{MemoryMB: 1024}}},
		{resp: AllocateResponse{ResponseID: 3, Preempt: warn, Limit: &Resource{MemoryMB: 0},
			Completed: []Completed{{ID: cid(2), ExitStatus: -102}}}},
	}
	h.beat(t)
	h.beat(t)
	h.beat(t)
	w := core.PreemptionWarned{Negotiable: []string{cid(3).String()}, NegotiableMB: 512}
	want := []core.Event{
		core.HeadroomReported{MemoryMB: 1024},
		w,
		core.WorkerGone{Worker: cid(2).String(), Reason: lostReason(Completed{ID: cid(2), ExitStatus: -102}), Exited: true, Preempted: true},
		core.HeadroomReported{MemoryMB: 0},
		w,
	}
	if !reflect.DeepEqual(rec.evs, want) {
		t.Errorf("events\n got %+v\nwant %+v", rec.evs, want)
	}
}
