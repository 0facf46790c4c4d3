package yarn

import (
	"context"
	"fmt"
	"io"
	"os/user"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// TestRealRMStrictNodeRequests drives the world's RM layer against the
// minicluster's ResourceManager as an unmanaged AM (no AM container: the
// test is the AM): strict node-level asks for one NodeManager must be
// granted on that node only, NMTokens must come with them, and Close must
// give every container back. The NM side is the recording fake (nothing
// is launched).
func TestRealRMStrictNodeRequests(t *testing.T) {
	testcluster.ConfDir(t)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rm := yarnrpc.NewApplicationClient(testcluster.RMAddress(t), u.Username)
	defer rm.Close()
	app, err := rm.GetNewApplication(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := app.GetApplicationId()
	if err := rm.SubmitApplication(ctx, &hadooppb.ApplicationSubmissionContextProto{
		ApplicationId: id, ApplicationName: proto.String("am/yarn strict asks"), ApplicationType: proto.String("EBB-TEST"),
		UnmanagedAm: proto.Bool(true), AmContainerSpec: &hadooppb.ContainerLaunchContextProto{},
	}); err != nil {
		t.Fatal(err)
	}
	defer rm.ForceKillApplication(context.Background(), id, "am/yarn test cleanup")
	var tok *hadooppb.TokenProto
	for tok == nil {
		rep, err := rm.GetApplicationReport(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tok = rep.GetAmRmToken(); tok == nil {
			select {
			case <-ctx.Done():
				t.Fatalf("no AMRMToken; state %v", rep.GetYarnApplicationState())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	nodes, err := NewClient(testcluster.RMAddress(t), u.Username).Nodes(ctx)
	if err != nil || len(nodes) < 2 {
		t.Fatalf("nodes %v, %v", nodes, err)
	}
	amrm := yarnrpc.NewAMRMClient(testcluster.SchedulerAddress(t), yarnrpc.TokenFromProto(tok))
	defer amrm.Close()
	nm := newFakeNM()
	log := logrus.New()
	log.SetOutput(io.Discard)
	w := New(Options{RM: RMPort{C: amrm}, NM: nm, Host: "localhost", Nodes: nodes, IncludePort: true, Log: log,
		Events: countSender{new(atomic.Int32)}})
	reg, err := w.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Max.MemoryMB != int64(testcluster.MaxAllocationMB(t)) {
		t.Errorf("maximum capability %+v, want %d MB", reg.Max, testcluster.MaxAllocationMB(t))
	}
	// One group per NodeManager, each asking strictly for 2 containers
	// there: each group has its own priority, so this also checks that
	// containers are matched to their group by priority.
	want := map[string]string{}
	for i, n := range nodes {
		g := core.GroupInfo{Name: fmt.Sprintf("strict-%d", i), MemoryMB: 256, VCores: 1}
		want[g.Name] = n.Node
		w.WantWorkers(time.Now(), core.WantWorkers{Group: g, Total: 2, Prefer: []string{n.Node}})
	}
	start := time.Now()
	for {
		if err := w.beat(ctx); err != nil {
			t.Fatal(err)
		}
		w.launches.Wait()
		w.mu.Lock()
		held := len(w.book.held)
		w.mu.Unlock()
		if held == 2*len(nodes) {
			break
		}
		// A strict ask waits for room on its node, and in CI cmd/ebb's
		// cluster tests run beside this package's and may fill a node for
		// a while (one did for over 30 s): the bound is for a hang, not
		// for a busy node.
		if time.Since(start) > 150*time.Second {
			t.Fatalf("only %d of %d containers after %s", held, 2*len(nodes), time.Since(start))
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d strict containers after %s; stats %+v", 2*len(nodes), time.Since(start).Round(time.Millisecond), w.Stats())
	w.mu.Lock()
	for _, h := range w.book.held {
		if h.c.Node != want[h.group] {
			t.Errorf("container %s of %s on %s, asked strictly for %s", h.c.ID, h.group, h.c.Node, want[h.group])
		}
	}
	w.mu.Unlock()
	nm.mu.Lock()
	if len(nm.started) != 2*len(nodes) {
		t.Errorf("%d launches, want %d (each needs its node's NMToken)", len(nm.started), 2*len(nodes))
	}
	nm.mu.Unlock()
	if err := w.Close(); err != nil {
		t.Logf("close: %v (stopping containers the fake NM never started)", err)
	}
	// The released containers come back as completed (-100) in later
	// heartbeats: the RM holds none of them any more.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := w.o.RM.Allocate(ctx, AllocateRequest{ResponseID: w.respID})
		if err != nil {
			t.Fatal(err)
		}
		w.respID = resp.ResponseID
		w.mu.Lock()
		w.book.Completed(resp.Completed)
		left := len(w.book.releasing)
		w.mu.Unlock()
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d released containers never reported completed", left)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := w.Finish(ctx, Succeeded, "am/yarn test"); err != nil {
		t.Fatal(err)
	}
}
