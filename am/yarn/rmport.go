package yarn

import (
	"context"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// RMPort is the RM port over yarnrpc's ApplicationMasterProtocol client.
type RMPort struct {
	C *yarnrpc.AMRMClient
	// ha, under RM HA (NewHARMPort), holds a client per RM and which one
	// is taken for active: C is then unused.
	ha *amrmRing
}

// NewHARMPort is the RM port over one client per ResourceManager (RM HA,
// in rm-id order). A call that cannot reach its RM, or that a standby
// refuses, moves the port to the next RM: registration tries each in
// turn, a heartbeat goes there next time (the world resends its whole
// table after a failed allocate, and re-registers when the new active RM
// does not know it).
func NewHARMPort(clients []*yarnrpc.AMRMClient) RMPort {
	if len(clients) == 1 {
		return RMPort{C: clients[0]}
	}
	return RMPort{ha: &amrmRing{clients: clients}}
}

type amrmRing struct {
	mu      sync.Mutex
	clients []*yarnrpc.AMRMClient
	cur     int
}

func (p RMPort) client() *yarnrpc.AMRMClient {
	if p.ha == nil {
		return p.C
	}
	p.ha.mu.Lock()
	defer p.ha.mu.Unlock()
	return p.ha.clients[p.ha.cur]
}

// failed moves to the next RM after an error that says this one is not
// the active RM.
func (p RMPort) failed(c *yarnrpc.AMRMClient, err error) {
	if p.ha == nil || err == nil || !failsOver(err) {
		return
	}
	p.ha.mu.Lock()
	defer p.ha.mu.Unlock()
	if p.ha.clients[p.ha.cur] == c {
		p.ha.cur = (p.ha.cur + 1) % len(p.ha.clients)
	}
}

// Register implements RM.
func (p RMPort) Register(ctx context.Context, host string, port int32, trackingURL string) (Registration, error) {
	tries := 1
	if p.ha != nil {
		tries = failoverRounds * len(p.ha.clients)
	}
	var r *hadooppb.RegisterApplicationMasterResponseProto
	var err error
	for i := 0; i < tries; i++ {
		c := p.client()
		if r, err = c.RegisterApplicationMaster(ctx, host, port, trackingURL); err == nil || !failsOver(err) || ctx.Err() != nil {
			break
		}
		p.failed(c, err)
	}
	if err != nil {
		return Registration{}, err
	}
	reg := Registration{Max: resourceFrom(r.GetMaximumCapability()), Queue: r.GetQueue(),
		NMTokens: nmTokensFrom(r.GetNmTokensFromPreviousAttempts())}
	for _, c := range r.GetContainersFromPreviousAttempts() {
		reg.Previous = append(reg.Previous, containerFrom(c))
	}
	return reg, nil
}

// Allocate implements RM.
func (p RMPort) Allocate(ctx context.Context, req AllocateRequest) (AllocateResponse, error) {
	pr := &hadooppb.AllocateRequestProto{ResponseId: proto.Int32(req.ResponseID), Progress: proto.Float32(req.Progress)}
	for _, a := range req.Asks {
		pr.Ask = append(pr.Ask, askProto(a))
	}
	for _, id := range req.Release {
		pr.Release = append(pr.Release, containerIDProto(id))
	}
	if len(req.BlacklistAdd)+len(req.BlacklistRemove) > 0 {
		pr.BlacklistRequest = &hadooppb.ResourceBlacklistRequestProto{BlacklistAdditions: req.BlacklistAdd, BlacklistRemovals: req.BlacklistRemove}
	}
	c := p.client()
	r, err := c.Allocate(ctx, pr)
	if err != nil {
		p.failed(c, err)
		return AllocateResponse{}, err
	}
	out := AllocateResponse{ResponseID: r.GetResponseId(), NMTokens: nmTokensFrom(r.GetNmTokens())}
	// proto2: an absent enum reads as its first value (AM_RESYNC), so
	// only a command actually on the wire counts.
	if r.AMCommand != nil {
		switch *r.AMCommand {
		case hadooppb.AMCommandProto_AM_RESYNC:
			out.Command = CommandResync
		case hadooppb.AMCommandProto_AM_SHUTDOWN:
			out.Command = CommandShutdown
		}
	}
	for _, c := range r.GetAllocatedContainers() {
		out.Allocated = append(out.Allocated, containerFrom(c))
	}
	for _, s := range r.GetCompletedContainerStatuses() {
		out.Completed = append(out.Completed, Completed{ID: containerIDFrom(s.GetContainerId()), ExitStatus: s.GetExitStatus(), Diagnostics: s.GetDiagnostics()})
	}
	for _, n := range r.GetUpdatedNodes() {
		out.UpdatedNodes = append(out.UpdatedNodes, nodeReportFrom(n))
	}
	out.Preempt = preemptionFrom(r.GetPreempt())
	if l := r.GetLimit(); l != nil {
		lim := resourceFrom(l)
		out.Limit = &lim
	}
	if t := r.GetAmRmToken(); t != nil {
		tok := yarnrpc.TokenFromProto(t)
		out.AMRMToken = &tok // yarnrpc already uses it for new connections
	}
	return out, nil
}

func containerFrom(c *hadooppb.ContainerProto) Container {
	return Container{
		ID: containerIDFrom(c.GetId()), Node: nodeName(c.GetNodeId()), Host: c.GetNodeId().GetHost(),
		Resource: resourceFrom(c.GetResource()), Priority: c.GetPriority().GetPriority(),
		Token: yarnrpc.TokenFromProto(c.GetContainerToken()),
	}
}

// Finish implements RM.
func (p RMPort) Finish(ctx context.Context, status FinalStatus, diagnostics, trackingURL string) (bool, error) {
	st := map[FinalStatus]hadooppb.FinalApplicationStatusProto{
		Undefined: hadooppb.FinalApplicationStatusProto_APP_UNDEFINED, Succeeded: hadooppb.FinalApplicationStatusProto_APP_SUCCEEDED,
		Failed: hadooppb.FinalApplicationStatusProto_APP_FAILED, Killed: hadooppb.FinalApplicationStatusProto_APP_KILLED,
	}[status]
	c := p.client()
	done, err := c.FinishApplicationMaster(ctx, &hadooppb.FinishApplicationMasterRequestProto{
		Diagnostics: proto.String(diagnostics), TrackingUrl: proto.String(trackingURL), FinalApplicationStatus: st.Enum()})
	p.failed(c, err)
	return done, err
}
