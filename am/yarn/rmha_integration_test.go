package yarn

import (
	"context"
	"net"
	"os/user"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// TestRealRMFailoverOfTheAMPort: under RM HA the AM is given two
// schedulers, the first down; registering, heartbeating and unregistering
// all reach the live RM (an unmanaged AM of the minicluster, which has
// one RM: a standby RM is in failover_test.go only).
func TestRealRMFailoverOfTheAMPort(t *testing.T) {
	testcluster.ConfDir(t)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rm := yarnrpc.NewApplicationClient(testcluster.RMAddress(t), u.Username)
	defer rm.Close()
	app, err := rm.GetNewApplication(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := app.GetApplicationId()
	if err := rm.SubmitApplication(ctx, &hadooppb.ApplicationSubmissionContextProto{
		ApplicationId: id, ApplicationName: proto.String("am/yarn RM failover"), ApplicationType: proto.String("EBB-TEST"),
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close() // nobody listens there now
	token := yarnrpc.TokenFromProto(tok)
	down, live := yarnrpc.NewAMRMClient(dead, token), yarnrpc.NewAMRMClient(testcluster.SchedulerAddress(t), token)
	defer down.Close()
	defer live.Close()
	port := NewHARMPort([]*yarnrpc.AMRMClient{down, live}, Retry{MaxWait: time.Minute, Interval: time.Second, FailoverAttempts: 2, FailoverBase: 100 * time.Millisecond, FailoverMax: time.Second})
	reg, err := port.Register(ctx, "localhost", 0, "")
	if err != nil {
		t.Fatalf("register through a down RM and the live one: %v", err)
	}
	if reg.Max.MemoryMB != int64(testcluster.MaxAllocationMB(t)) {
		t.Errorf("maximum capability %+v from the live RM, want %d MB", reg.Max, testcluster.MaxAllocationMB(t))
	}
	if _, err := port.Allocate(ctx, AllocateRequest{}); err != nil {
		t.Errorf("allocate after failing over: %v", err)
	}
	for done := false; !done; {
		if done, err = port.Finish(ctx, Succeeded, "RM failover test", ""); err != nil {
			t.Fatalf("unregister after failing over: %v", err)
		}
	}
}
