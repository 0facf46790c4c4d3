package yarn

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// RMPort is the RM port over yarnrpc's ApplicationMasterProtocol client.
type RMPort struct {
	C *yarnrpc.AMRMClient
	// ring, when set (NewHARMPort), holds a client per RM and runs every
	// call under its Retry: C is then unused.
	ring    *rmRing
	clients []*yarnrpc.AMRMClient
}

// NewHARMPort is the RM port over one client per ResourceManager (RM HA,
// in rm-id order), or over the one RM, with retry as Hadoop's AMRMClient
// does (Retry): registering, heartbeating and unregistering outlast an RM
// restart and fail over to the RM that became active (the world resends
// its whole table after a failed allocate, and re-registers when the RM
// does not know it).
func NewHARMPort(clients []*yarnrpc.AMRMClient, r Retry) RMPort {
	addrs := make([]string, len(clients))
	for i, c := range clients {
		addrs[i] = c.Addr()
	}
	return RMPort{ring: newRMRing(addrs, r), clients: clients}
}

// Logging makes the port tell logf of its retries (see rmRing.logf).
func (p RMPort) Logging(logf func(format string, args ...any)) RMPort {
	if p.ring != nil {
		p.ring.logf = logf
	}
	return p
}

// do runs call at the RM the ring says, or at C.
func (p RMPort) do(ctx context.Context, call func(c *yarnrpc.AMRMClient) error) error {
	if p.ring == nil {
		return call(p.C)
	}
	return p.ring.do(ctx, func(i int) error { return call(p.clients[i]) })
}

// Register implements RM.
func (p RMPort) Register(ctx context.Context, host string, port int32, trackingURL string) (Registration, error) {
	var r *hadooppb.RegisterApplicationMasterResponseProto
	err := p.do(ctx, func(c *yarnrpc.AMRMClient) (err error) {
		r, err = c.RegisterApplicationMaster(ctx, host, port, trackingURL)
		return err
	})
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
	// A retry resends the same request with the same response_id: an RM
	// that ran it answers from its cache.
	var r *hadooppb.AllocateResponseProto
	err := p.do(ctx, func(c *yarnrpc.AMRMClient) (err error) { r, err = c.Allocate(ctx, pr); return err })
	if err != nil {
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
		out.AMRMToken = &tok // the client that got it already uses it
		for _, c := range p.clients {
			c.SetToken(tok) // and so must those of the other RMs, for a failover
		}
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
	var done bool
	err := p.do(ctx, func(c *yarnrpc.AMRMClient) (err error) {
		done, err = c.FinishApplicationMaster(ctx, &hadooppb.FinishApplicationMasterRequestProto{
			Diagnostics: proto.String(diagnostics), TrackingUrl: proto.String(trackingURL), FinalApplicationStatus: st.Enum()})
		return err
	})
	return done, err
}
