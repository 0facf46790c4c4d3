package yarnrpc

import (
	"context"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// ContainerManagerClient speaks ContainerManagementProtocol to one
// NodeManager (its NodeId host:port), authenticating with that node's
// NMToken over SASL DIGEST-MD5. Per-container failures come back in the
// responses' failed_requests, not as errors.
//
// Retry: startContainers is not resent once it may have reached the NM (a
// second start of the same container fails and muddles the outcome);
// stopContainers and getContainerStatuses are idempotent.
type ContainerManagerClient struct{ rpc *Client }

// NewContainerManagerClient returns a client for the NM at addr.
func NewContainerManagerClient(addr string, nmToken Token, opts ...Option) *ContainerManagerClient {
	return &ContainerManagerClient{rpc: newClient(addr, ProtocolContainerManagement, "", &nmToken, opts)}
}

// Close ends the connection.
func (n *ContainerManagerClient) Close() error { return n.rpc.Close() }

// SetToken swaps in a newer NMToken for this node.
func (n *ContainerManagerClient) SetToken(t Token) { n.rpc.SetToken(t) }

// StartContainers launches containers; each request carries the launch
// context and the container token from the allocation.
func (n *ContainerManagerClient) StartContainers(ctx context.Context, reqs []*hadooppb.StartContainerRequestProto) (*hadooppb.StartContainersResponseProto, error) {
	resp := &hadooppb.StartContainersResponseProto{}
	err := n.rpc.call(ctx, "startContainers", retryUnsent, &hadooppb.StartContainersRequestProto{StartContainerRequest: reqs}, resp)
	return resp, err
}

// StopContainers stops containers.
func (n *ContainerManagerClient) StopContainers(ctx context.Context, ids []*hadooppb.ContainerIdProto) (*hadooppb.StopContainersResponseProto, error) {
	resp := &hadooppb.StopContainersResponseProto{}
	err := n.rpc.call(ctx, "stopContainers", retrySafe, &hadooppb.StopContainersRequestProto{ContainerId: ids}, resp)
	return resp, err
}

// GetContainerStatuses returns the NM's view of containers.
func (n *ContainerManagerClient) GetContainerStatuses(ctx context.Context, ids []*hadooppb.ContainerIdProto) (*hadooppb.GetContainerStatusesResponseProto, error) {
	resp := &hadooppb.GetContainerStatusesResponseProto{}
	err := n.rpc.call(ctx, "getContainerStatuses", retrySafe, &hadooppb.GetContainerStatusesRequestProto{ContainerId: ids}, resp)
	return resp, err
}
