package yarnrpc

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Protocol names as the server knows them (declaringClassProtocolName and
// the connection context's protocol).
const (
	ProtocolApplicationClient   = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB"
	ProtocolApplicationMaster   = "org.apache.hadoop.yarn.api.ApplicationMasterProtocolPB"
	ProtocolContainerManagement = "org.apache.hadoop.yarn.api.ContainerManagementProtocolPB"
)

// ApplicationClient speaks ApplicationClientProtocol to the RM
// (yarn.resourcemanager.address, default port 8032). On an insecure cluster
// it authenticates SIMPLE: the server trusts the user name we send. Every
// method here is idempotent on the RM side (submitApplication of an id the
// RM already has returns success), so transport failures retry.
type ApplicationClient struct{ rpc *Client }

// NewApplicationClient returns a client for the RM at addr acting as user.
// It does not connect until the first call.
func NewApplicationClient(addr, user string, opts ...Option) *ApplicationClient {
	return &ApplicationClient{rpc: newClient(addr, ProtocolApplicationClient, user, nil, opts)}
}

// NewApplicationClientWithToken returns a client for the RM at addr that
// authenticates with an RM delegation token (TOKEN/DIGEST-MD5): how an AM,
// which has no Kerberos ticket, calls the RM's client protocol on a secure
// cluster.
func NewApplicationClientWithToken(addr string, tok Token, opts ...Option) *ApplicationClient {
	return &ApplicationClient{rpc: newClient(addr, ProtocolApplicationClient, "", &tok, opts)}
}

// KindRMDelegationToken is the kind of the RM's delegation token.
const KindRMDelegationToken = "RM_DELEGATION_TOKEN"

// GetDelegationToken obtains an RM delegation token renewable by renewer
// (a Kerberos-authenticated caller only). Its service is the RM's ip:port,
// as Hadoop's client sets it.
func (a *ApplicationClient) GetDelegationToken(ctx context.Context, renewer string) (Token, error) {
	resp := &hadooppb.GetDelegationTokenResponseProto{}
	req := &hadooppb.GetDelegationTokenRequestProto{Renewer: proto.String(renewer)}
	if err := a.rpc.call(ctx, "getDelegationToken", retryUnsent, req, resp); err != nil {
		return Token{}, err
	}
	if resp.GetToken() == nil {
		return Token{}, fmt.Errorf("%w: the RM at %s issued no delegation token (is security off?)", ErrProtocol, a.rpc.Addr())
	}
	t := TokenFromProto(resp.GetToken())
	if t.Service == "" {
		svc, err := tokenService(ctx, a.rpc.Addr())
		if err != nil {
			return Token{}, err
		}
		t.Service = svc
	}
	return t, nil
}

// Close ends the connection.
func (a *ApplicationClient) Close() error { return a.rpc.Close() }

// GetNewApplication reserves an application id; the response also carries
// the cluster's maximum container capability.
func (a *ApplicationClient) GetNewApplication(ctx context.Context) (*hadooppb.GetNewApplicationResponseProto, error) {
	resp := &hadooppb.GetNewApplicationResponseProto{}
	err := a.rpc.call(ctx, "getNewApplication", retrySafe, &hadooppb.GetNewApplicationRequestProto{}, resp)
	return resp, err
}

// SubmitApplication submits an application under an id from
// GetNewApplication.
func (a *ApplicationClient) SubmitApplication(ctx context.Context, sub *hadooppb.ApplicationSubmissionContextProto) error {
	req := &hadooppb.SubmitApplicationRequestProto{ApplicationSubmissionContext: sub}
	return a.rpc.call(ctx, "submitApplication", retrySafe, req, &hadooppb.SubmitApplicationResponseProto{})
}

// GetApplicationReport returns the RM's report of one application.
func (a *ApplicationClient) GetApplicationReport(ctx context.Context, id *hadooppb.ApplicationIdProto) (*hadooppb.ApplicationReportProto, error) {
	resp := &hadooppb.GetApplicationReportResponseProto{}
	err := a.rpc.call(ctx, "getApplicationReport", retrySafe, &hadooppb.GetApplicationReportRequestProto{ApplicationId: id}, resp)
	return resp.GetApplicationReport(), err
}

// GetApplications lists applications matching the request's filters (types,
// states, users, queues, tags; an empty request lists all).
func (a *ApplicationClient) GetApplications(ctx context.Context, req *hadooppb.GetApplicationsRequestProto) ([]*hadooppb.ApplicationReportProto, error) {
	if req == nil {
		req = &hadooppb.GetApplicationsRequestProto{}
	}
	resp := &hadooppb.GetApplicationsResponseProto{}
	err := a.rpc.call(ctx, "getApplications", retrySafe, req, resp)
	return resp.GetApplications(), err
}

// ForceKillApplication asks the RM to kill an application. completed is
// false while the kill is still in progress: poll the report (or call
// again) until the application is KILLED.
func (a *ApplicationClient) ForceKillApplication(ctx context.Context, id *hadooppb.ApplicationIdProto, diagnostics string) (completed bool, err error) {
	req := &hadooppb.KillApplicationRequestProto{ApplicationId: id}
	if diagnostics != "" {
		req.Diagnostics = proto.String(diagnostics)
	}
	resp := &hadooppb.KillApplicationResponseProto{}
	err = a.rpc.call(ctx, "forceKillApplication", retrySafe, req, resp)
	return resp.GetIsKillCompleted(), err
}

// GetClusterNodes returns the reports of nodes in the given states (none:
// the RM's default, all states).
func (a *ApplicationClient) GetClusterNodes(ctx context.Context, states ...hadooppb.NodeStateProto) ([]*hadooppb.NodeReportProto, error) {
	resp := &hadooppb.GetClusterNodesResponseProto{}
	err := a.rpc.call(ctx, "getClusterNodes", retrySafe, &hadooppb.GetClusterNodesRequestProto{NodeStates: states}, resp)
	return resp.GetNodeReports(), err
}

// GetClusterNodeLabels returns the node labels (partitions) the cluster
// has; none when node labels are off.
func (a *ApplicationClient) GetClusterNodeLabels(ctx context.Context) ([]*hadooppb.NodeLabelProto, error) {
	resp := &hadooppb.GetClusterNodeLabelsResponseProto{}
	err := a.rpc.call(ctx, "getClusterNodeLabels", retrySafe, &hadooppb.GetClusterNodeLabelsRequestProto{}, resp)
	labels := resp.GetNodeLabels()
	if len(labels) == 0 { // an RM before 2.8 lists names only
		for _, name := range resp.GetDeprecatedNodeLabels() {
			labels = append(labels, &hadooppb.NodeLabelProto{Name: proto.String(name)})
		}
	}
	return labels, err
}

// GetClusterMetrics returns the node counts of the cluster.
func (a *ApplicationClient) GetClusterMetrics(ctx context.Context) (*hadooppb.YarnClusterMetricsProto, error) {
	resp := &hadooppb.GetClusterMetricsResponseProto{}
	err := a.rpc.call(ctx, "getClusterMetrics", retrySafe, &hadooppb.GetClusterMetricsRequestProto{}, resp)
	return resp.GetClusterMetrics(), err
}
