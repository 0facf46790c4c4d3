package yarnrpc

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// ProtocolRMAdmin is ResourceManagerAdministrationProtocol's name.
const ProtocolRMAdmin = "org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocolPB"

// AdminClient speaks ResourceManagerAdministrationProtocol to the RM's
// admin address (yarn.resourcemanager.admin.address, default port 8033):
// only the node-label calls, what `yarn rmadmin -addToClusterNodeLabels`
// and `-replaceLabelsOnNode` do. ebb itself never administers a cluster;
// its tests label a minicluster's NodeManager with it. Both calls set
// state (adding a label twice or giving a node the labels it has is a
// no-op on the RM), so transport failures retry.
type AdminClient struct{ rpc *Client }

// NewAdminClient returns a client of the RM's admin address acting as user
// (SIMPLE authentication; yarn.admin.acl must admit the user).
func NewAdminClient(addr, user string, opts ...Option) *AdminClient {
	return &AdminClient{rpc: newClient(addr, ProtocolRMAdmin, user, nil, opts)}
}

// AddToClusterNodeLabels adds labels to the cluster, exclusive ones.
func (a *AdminClient) AddToClusterNodeLabels(ctx context.Context, names ...string) error {
	req := &hadooppb.AddToClusterNodeLabelsRequestProto{}
	for _, n := range names {
		req.NodeLabels = append(req.NodeLabels, &hadooppb.NodeLabelProto{Name: proto.String(n), IsExclusive: proto.Bool(true)})
	}
	return a.rpc.call(ctx, "addToClusterNodeLabels", retrySafe, req, &hadooppb.AddToClusterNodeLabelsResponseProto{})
}

// ReplaceLabelsOnNode gives the node (host and port: one NodeManager of
// several on a host) exactly these labels; none removes its labels.
func (a *AdminClient) ReplaceLabelsOnNode(ctx context.Context, host string, port int32, labels ...string) error {
	req := &hadooppb.ReplaceLabelsOnNodeRequestProto{FailOnUnknownNodes: proto.Bool(true),
		NodeToLabels: []*hadooppb.NodeIdToLabelsProto{{
			NodeId: &hadooppb.NodeIdProto{Host: proto.String(host), Port: proto.Int32(port)}, NodeLabels: labels}}}
	return a.rpc.call(ctx, "replaceLabelsOnNodes", retrySafe, req, &hadooppb.ReplaceLabelsOnNodeResponseProto{})
}

// Close ends the connection.
func (a *AdminClient) Close() error { return a.rpc.Close() }
