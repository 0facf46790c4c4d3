package yarnrpc

import (
	"context"
	"maps"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// ProtocolRMAdmin is ResourceManagerAdministrationProtocol's name.
const ProtocolRMAdmin = "org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocolPB"

// AdminClient speaks ResourceManagerAdministrationProtocol to the RM's
// admin address (yarn.resourcemanager.admin.address, default port 8033):
// only what `yarn rmadmin -addToClusterNodeLabels`, `-replaceLabelsOnNode`
// and `-updateNodeResource` do. ebb itself never administers a cluster;
// its tests label a minicluster's NodeManager, or take its GPU away, with
// it. Every call sets state (doing it twice is a no-op on the RM), so
// transport failures retry.
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

// UpdateNodeResource sets the resources the scheduler counts on a node
// (rmadmin -updateNodeResource): memory, vcores and other types by name.
func (a *AdminClient) UpdateNodeResource(ctx context.Context, host string, port int32, memoryMB int64, vcores int32, types map[string]int64) error {
	r := &hadooppb.ResourceProto{Memory: proto.Int64(memoryMB), VirtualCores: proto.Int32(vcores)}
	for _, name := range slices.Sorted(maps.Keys(types)) {
		r.ResourceValueMap = append(r.ResourceValueMap, &hadooppb.ResourceInformationProto{Key: proto.String(name), Value: proto.Int64(types[name])})
	}
	req := &hadooppb.UpdateNodeResourceRequestProto{NodeResourceMap: []*hadooppb.NodeResourceMapProto{{
		NodeId:         &hadooppb.NodeIdProto{Host: proto.String(host), Port: proto.Int32(port)},
		ResourceOption: &hadooppb.ResourceOptionProto{Resource: r, OverCommitTimeout: proto.Int32(-1)}}}}
	return a.rpc.call(ctx, "updateNodeResource", retrySafe, req, &hadooppb.UpdateNodeResourceResponseProto{})
}

// Close ends the connection.
func (a *AdminClient) Close() error { return a.rpc.Close() }
