package yarn

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/yarnrpc"
)

// Resync scenarios: the RM restarts (work-preserving, from its state
// store) or fails over while the AM holds containers, asks for more and
// releases some. The Book must come out of the re-registration with every
// held container kept, the whole ask table and every unconfirmed release
// sent again, and any container the RM lists that the AM never took given
// back.

// TestBookResyncedReleasesOnlyWhatTheAMNeverTook: held containers stay
// held, a release in flight is sent again once, and containers the RM
// lists that the Book neither holds nor releases (their allocate answer
// was lost in the restart) are released.
func TestBookResyncedReleasesOnlyWhatTheAMNeverTook(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 3})
	b.Request()
	b.Allocated([]Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1")})
	b.Release(cid(3)) // its launch failed; the release is in flight when the RM goes
	b.Request()
	// The restarted RM lists 2 and 3 (NMs reported them), and 4 and 5,
	// which it handed out in an answer the AM never got.
	surplus := b.Resynced([]Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1"), ctr(4, 1, "n2:1"), ctr(5, 1, "n1:1")})
	if !reflect.DeepEqual(surplus, []ContainerID{cid(4), cid(5)}) {
		t.Errorf("surplus %v, want 4 and 5", surplus)
	}
	r := b.Request()
	// Held 1 of 3: the whole table, ANY 2, and every release in full.
	if !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 2, true)}) {
		t.Errorf("asks after resync %+v, want ANY 2", r.Asks)
	}
	if !reflect.DeepEqual(r.Release, []ContainerID{cid(3), cid(4), cid(5)}) {
		t.Errorf("releases after resync %v, want 3 (in flight), 4 and 5 (never taken)", r.Release)
	}
	if b.Held("small") != 1 {
		t.Errorf("held %d after resync, want 1 (container 2 kept)", b.Held("small"))
	}
	// Nothing is sent twice once it went out.
	if r := b.Request(); len(r.Asks)+len(r.Release) != 0 {
		t.Errorf("sent again: %+v", r)
	}
	// A second resync (the RM failed over once more) re-sends the
	// releases not yet confirmed, and finds no new surplus.
	b.Completed([]Completed{{ID: cid(3)}, {ID: cid(4)}})
	if s := b.Resynced([]Container{ctr(2, 1, "n1:1"), ctr(5, 1, "n1:1")}); len(s) != 0 {
		t.Errorf("second resync: surplus %v, want none (5 is being released)", s)
	}
	if r := b.Request(); !reflect.DeepEqual(r.Release, []ContainerID{cid(5)}) {
		t.Errorf("second resync releases %v, want 5 only", r.Release)
	}
}

// TestWorldOutlastsAnRMRestart plays an RM restart against a scripted RM:
// allocates fail while it is down, the restarted RM does not know the AM
// (ApplicationMasterNotRegisteredException), the AM registers again and
// carries on: response ids from 0, the whole table and every release
// sent, the surplus released, no running worker launched again or
// reported lost.
func TestWorldOutlastsAnRMRestart(t *testing.T) {
	h := newHarness(t)
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 2})
	down := errors.New("dial tcp rm:8030: connect: connection refused")
	notRegistered := &yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException", Method: "allocate"}
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 1, Allocated: []Container{ctr(2, 1, "n1:1")}, NMTokens: []NMToken{tok("n1:1")}}},
		{resp: AllocateResponse{ResponseID: 2}},
		{err: down}, {err: down},
		{err: notRegistered},
		{resp: AllocateResponse{ResponseID: 1}},
	}
	h.beat(t) // container 2 launched; ANY 1 still wanted
	h.beat(t)
	launched, posted := len(h.nm.started), h.posts.Load()
	for i := 0; i < 2; i++ {
		if err := h.w.beat(context.Background()); err == nil {
			t.Fatal("an allocate to a down RM did not fail")
		}
	}
	// The restarted RM lists container 2 (its NM reported it) and 7,
	// which it handed out in the answer lost with the old process.
	h.rm.previous = []Container{ctr(2, 1, "n1:1"), ctr(7, 1, "n2:1")}
	h.beat(t) // not registered: register again
	if h.rm.registers != 2 {
		t.Fatalf("registers %d, want 2", h.rm.registers)
	}
	h.beat(t)
	r := h.rm.last()
	if r.ResponseID != 0 || !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 1, true)}) || !reflect.DeepEqual(r.Release, []ContainerID{cid(7)}) {
		t.Errorf("first allocate after re-registering: %+v; want response id 0, ANY 1, release 7", r)
	}
	if len(h.nm.started) != launched || h.posts.Load() != posted {
		t.Errorf("launches %d -> %d, events %d -> %d: a running worker was launched again or reported lost",
			launched, len(h.nm.started), posted, h.posts.Load())
	}
	if s := h.w.Stats(); s.Resyncs != 1 || s.ResyncSurplus != 1 {
		t.Errorf("stats %+v, want 1 resync and 1 surplus", s)
	}
}

// TestWorldGivesUpAtTheRetryBound: an RM port whose Retry ran out shuts
// the AM down with the error, which names the RM and the bound.
func TestWorldGivesUpAtTheRetryBound(t *testing.T) {
	h := newHarness(t)
	ue := &RMUnreachableError{Addrs: []string{"rm:8030"}, Tries: 3, Bound: "yarn.resourcemanager.connect.max-wait.ms=2000", Last: errors.New("refused")}
	h.rm.script = []fakeAnswer{{err: ue}}
	stopped := make(chan string, 1)
	h.w.o.OnShutdown = func(r string) { stopped <- r }
	h.w.o.Heartbeat = time.Millisecond
	h.w.Start()
	defer func() { _ = h.w.Close() }()
	select {
	case r := <-stopped:
		if !strings.Contains(r, ue.Error()) {
			t.Errorf("shutdown reason %q, want the RMUnreachableError's %q", r, ue.Error())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the AM heartbeats on after the RM retry bound ran out")
	}
}
