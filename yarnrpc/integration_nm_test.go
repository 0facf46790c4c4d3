package yarnrpc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// submitUnmanagedAM submits an unmanaged application and returns its id and
// the AMRMToken the RM hands back in the application report. The
// application is killed when the test ends (a no-op once it finished).
func submitUnmanagedAM(ctx context.Context, t *testing.T, c *ApplicationClient, name string) (*hadooppb.ApplicationIdProto, Token) {
	t.Helper()
	app, err := c.GetNewApplication(ctx)
	if err != nil {
		t.Fatalf("GetNewApplication: %v", err)
	}
	id := app.GetApplicationId()
	err = c.SubmitApplication(ctx, &hadooppb.ApplicationSubmissionContextProto{
		ApplicationId:   id,
		ApplicationName: proto.String(name),
		ApplicationType: proto.String("EBB-TEST"),
		UnmanagedAm:     proto.Bool(true),
		AmContainerSpec: &hadooppb.ContainerLaunchContextProto{},
	})
	if err != nil {
		t.Fatalf("SubmitApplication: %v", err)
	}
	t.Cleanup(func() { c.ForceKillApplication(context.Background(), id, "yarnrpc test cleanup") })
	for {
		rep, err := c.GetApplicationReport(ctx, id)
		if err != nil {
			t.Fatalf("GetApplicationReport: %v", err)
		}
		if tok := rep.GetAmRmToken(); tok != nil {
			return id, TokenFromProto(tok)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no AMRMToken in the report; last state %v", rep.GetYarnApplicationState())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestIntegrationContainerLifecycle asks the RM for one container, starts
// it on its NodeManager with the NMToken (SASL DIGEST-MD5 against the NM),
// and follows it to its exit status through the allocate heartbeat.
func TestIntegrationContainerLifecycle(t *testing.T) {
	c := rmClient(t)
	sched := clusterConf(t, "yarn.resourcemanager.scheduler.address")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	_, amrm := submitUnmanagedAM(ctx, t, c, "yarnrpc-container-test")

	am := NewAMRMClient(sched, amrm)
	defer am.Close()
	if _, err := am.RegisterApplicationMaster(ctx, "localhost", 0, ""); err != nil {
		t.Fatalf("RegisterApplicationMaster: %v", err)
	}

	// Heartbeat helper: response_id threads through every allocate.
	responseID := int32(0)
	nmTokens := map[string]Token{}
	heartbeat := func(req *hadooppb.AllocateRequestProto) *hadooppb.AllocateResponseProto {
		t.Helper()
		req.ResponseId = proto.Int32(responseID)
		resp, err := am.Allocate(ctx, req)
		if err != nil {
			t.Fatalf("Allocate: %v", err)
		}
		responseID = resp.GetResponseId()
		for _, nt := range resp.GetNmTokens() {
			nmTokens[fmt.Sprintf("%s:%d", nt.GetNodeId().GetHost(), nt.GetNodeId().GetPort())] = TokenFromProto(nt.GetToken())
		}
		return resp
	}
	wait := func(what string) {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}

	ask := &hadooppb.ResourceRequestProto{
		Priority:      &hadooppb.PriorityProto{Priority: proto.Int32(1)},
		ResourceName:  proto.String("*"),
		Capability:    &hadooppb.ResourceProto{Memory: proto.Int64(128), VirtualCores: proto.Int32(1)},
		NumContainers: proto.Int32(1),
	}
	start := time.Now()
	var ctr *hadooppb.ContainerProto
	// The ask is an absolute total: send it once; empty heartbeats keep
	// it standing until the container comes.
	req := &hadooppb.AllocateRequestProto{Ask: []*hadooppb.ResourceRequestProto{ask}}
	for ctr == nil {
		resp := heartbeat(req)
		req = &hadooppb.AllocateRequestProto{}
		if len(resp.GetAllocatedContainers()) > 0 {
			ctr = resp.GetAllocatedContainers()[0]
			break
		}
		wait("an allocated container")
	}
	t.Logf("ask -> container: %v", time.Since(start))
	node := fmt.Sprintf("%s:%d", ctr.GetNodeId().GetHost(), ctr.GetNodeId().GetPort())
	nmTok, ok := nmTokens[node]
	if !ok {
		t.Fatalf("no NMToken for %s (have %v)", node, nmTokens)
	}

	nm := NewContainerManagerClient(node, nmTok)
	defer nm.Close()
	start = time.Now()
	sresp, err := nm.StartContainers(ctx, []*hadooppb.StartContainerRequestProto{{
		ContainerLaunchContext: &hadooppb.ContainerLaunchContextProto{
			Command: []string{"sleep 1; exit 7"},
		},
		ContainerToken: ctr.GetContainerToken(),
	}})
	if err != nil {
		t.Fatalf("StartContainers: %v", err)
	}
	if len(sresp.GetFailedRequests()) > 0 || len(sresp.GetSucceededRequests()) != 1 {
		t.Fatalf("StartContainers: %v", sresp)
	}
	t.Logf("startContainers round trip: %v", time.Since(start))
	st, err := nm.GetContainerStatuses(ctx, []*hadooppb.ContainerIdProto{ctr.GetId()})
	if err != nil || len(st.GetStatus()) != 1 {
		t.Fatalf("GetContainerStatuses: %v %v", st, err)
	}

	// The exit status reaches the AM through the heartbeat.
	var done *hadooppb.ContainerStatusProto
	for done == nil {
		for _, s := range heartbeat(&hadooppb.AllocateRequestProto{}).GetCompletedContainerStatuses() {
			if proto.Equal(s.GetContainerId(), ctr.GetId()) {
				done = s
			}
		}
		if done == nil {
			wait("the container's completion")
		}
	}
	if done.GetExitStatus() != 7 || done.GetState() != hadooppb.ContainerStateProto_C_COMPLETE {
		t.Errorf("completed status %v, want exit 7", done)
	}
	unregistered, err := am.FinishApplicationMaster(ctx, &hadooppb.FinishApplicationMasterRequestProto{
		FinalApplicationStatus: hadooppb.FinalApplicationStatusProto_APP_SUCCEEDED.Enum(),
	})
	if err != nil {
		t.Fatalf("FinishApplicationMaster: %v", err)
	}
	_ = unregistered // the other test loops until true; here kill-on-cleanup covers the rest
}
