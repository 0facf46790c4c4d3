package yarnrpc

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// AMRMClient speaks ApplicationMasterProtocol to the RM's scheduler address
// (yarn.resourcemanager.scheduler.address, default port 8030). It always
// authenticates with the AMRMToken over SASL DIGEST-MD5, also on clusters
// with hadoop.security.authentication=simple.
//
// Retry: register and finish are idempotent; allocate is safe to resend
// because the RM answers a repeated response_id from its cache. The caller
// must still never run two allocates at once (package am's loop does not).
type AMRMClient struct{ rpc *Client }

// NewAMRMClient returns a client for the RM scheduler at addr
// authenticating with the AMRMToken tok (kind YARN_AM_RM_TOKEN).
func NewAMRMClient(addr string, tok Token, opts ...Option) *AMRMClient {
	return &AMRMClient{rpc: newClient(addr, ProtocolApplicationMaster, "", &tok, opts)}
}

// Close ends the connection.
func (a *AMRMClient) Close() error { return a.rpc.Close() }

// Addr is the scheduler address the client calls.
func (a *AMRMClient) Addr() string { return a.rpc.Addr() }

// SetToken swaps in a new AMRMToken for future connections.
func (a *AMRMClient) SetToken(t Token) { a.rpc.SetToken(t) }

// RegisterApplicationMaster registers this attempt; host, rpcPort and
// trackingURL are what clients and the RM UI will see.
func (a *AMRMClient) RegisterApplicationMaster(ctx context.Context, host string, rpcPort int32, trackingURL string) (*hadooppb.RegisterApplicationMasterResponseProto, error) {
	req := &hadooppb.RegisterApplicationMasterRequestProto{
		Host:        proto.String(host),
		RpcPort:     proto.Int32(rpcPort),
		TrackingUrl: proto.String(trackingURL),
	}
	resp := &hadooppb.RegisterApplicationMasterResponseProto{}
	err := a.rpc.call(ctx, "registerApplicationMaster", retrySafe, req, resp)
	return resp, err
}

// Allocate is the AM heartbeat: asks, releases and blacklist changes go in;
// containers, completed statuses, NMTokens and commands come out. A rolled
// AMRMToken in the response is swapped in for future connections here, so
// a reconnect after the old token expires still authenticates.
func (a *AMRMClient) Allocate(ctx context.Context, req *hadooppb.AllocateRequestProto) (*hadooppb.AllocateResponseProto, error) {
	resp := &hadooppb.AllocateResponseProto{}
	if err := a.rpc.call(ctx, "allocate", retrySafe, req, resp); err != nil {
		return resp, err
	}
	if t := resp.GetAmRmToken(); t != nil {
		a.rpc.SetToken(TokenFromProto(t))
	}
	return resp, nil
}

// FinishApplicationMaster unregisters. unregistered is false while the RM
// is still saving the final state: call again until it is true.
func (a *AMRMClient) FinishApplicationMaster(ctx context.Context, req *hadooppb.FinishApplicationMasterRequestProto) (unregistered bool, err error) {
	resp := &hadooppb.FinishApplicationMasterResponseProto{}
	err = a.rpc.call(ctx, "finishApplicationMaster", retrySafe, req, resp)
	return resp.GetIsUnregistered(), err
}
