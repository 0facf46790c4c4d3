package amclient

import (
	"context"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Submit submits a DAG and returns its id. It is not repeated at another
// attempt (see call).
func (c *Client) Submit(ctx context.Context, s Submit) (string, error) {
	var id string
	err := c.call(ctx, "submit", false, func(ctx context.Context, pb ebbpb.ClientClient) error {
		r, err := pb.SubmitDAG(ctx, &ebbpb.SubmitDAGRequest{Spec: s.Spec, SpecName: s.SpecName, BaseDir: s.BaseDir,
			Output: s.Output, Overwrite: s.Overwrite, Client: s.Client})
		if err == nil {
			id = r.DagId
		}
		return err
	})
	return id, err
}

// Status is one DAG's status.
func (c *Client) Status(ctx context.Context, id string) (DAG, error) {
	var d DAG
	err := c.call(ctx, "status", true, func(ctx context.Context, pb ebbpb.ClientClient) error {
		r, err := pb.DAGStatus(ctx, &ebbpb.DAGStatusRequest{DagId: id})
		if err == nil {
			d = dagOf(r.Dag)
		}
		return err
	})
	return d, err
}

// List is one page of the AM's DAGs.
func (c *Client) List(ctx context.Context, p Page) (List, error) {
	var l List
	err := c.call(ctx, "list", true, func(ctx context.Context, pb ebbpb.ClientClient) error {
		r, err := pb.ListDAGs(ctx, &ebbpb.ListDAGsRequest{State: p.State, Limit: int32(p.Limit), Before: p.Before})
		if err == nil {
			l = List{DAGs: dagsOf(r.Dags), Total: int(r.Total), NextBefore: r.NextBefore}
		}
		return err
	})
	return l, err
}

// Cluster is what the AM says of its ContainerGroups.
func (c *Client) Cluster(ctx context.Context) (Cluster, error) {
	var cl Cluster
	err := c.call(ctx, "cluster", true, func(ctx context.Context, pb ebbpb.ClientClient) error {
		r, err := pb.ClusterStatus(ctx, &ebbpb.ClusterStatusRequest{})
		if err == nil {
			cl = clusterOf(r)
		}
		return err
	})
	return cl, err
}

// Kill kills a DAG, saying why in its diagnostics.
func (c *Client) Kill(ctx context.Context, id, reason string) error {
	return c.call(ctx, "kill", true, func(ctx context.Context, pb ebbpb.ClientClient) error {
		_, err := pb.KillDAG(ctx, &ebbpb.KillDAGRequest{DagId: id, Reason: reason})
		return err
	})
}

// SetAutoscaleTarget sets the latency target
// (ebb.auto.scale.target.p95.slowdown) of one group, or of every group
// when group is empty.
func (c *Client) SetAutoscaleTarget(ctx context.Context, group string, p95Slowdown float64) error {
	return c.call(ctx, "autoscale", true, func(ctx context.Context, pb ebbpb.ClientClient) error {
		_, err := pb.SetAutoscaleTarget(ctx, &ebbpb.SetAutoscaleTargetRequest{Group: group, P95Slowdown: p95Slowdown})
		return err
	})
}

// SetAutoscale retunes the autoscaler.
func (c *Client) SetAutoscale(ctx context.Context, a Autoscale) error {
	return c.call(ctx, "autoscale", true, func(ctx context.Context, pb ebbpb.ClientClient) error {
		_, err := pb.SetAutoscale(ctx, &ebbpb.SetAutoscaleRequest{Group: a.Group, OutPercent: int32(a.OutPercent),
			InPercent: int32(a.InPercent), MinHosts: int32(a.MinHosts)})
		return err
	})
}
