package am

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// clientService serves `ebb dag ...` and friends.
type clientService struct {
	ebbpb.UnimplementedClientServer
	am *AM
}

func (s *clientService) SubmitDAG(ctx context.Context, r *ebbpb.SubmitDAGRequest) (*ebbpb.SubmitDAGResponse, error) {
	id, err := s.am.Submit(ctx, SubmitRequest{Spec: r.Spec, SpecName: r.SpecName, BaseDir: r.BaseDir, Output: r.Output,
		Overwrite: r.Overwrite, Client: r.Client})
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &ebbpb.SubmitDAGResponse{DagId: id}, nil
}

func (s *clientService) DAGStatus(ctx context.Context, r *ebbpb.DAGStatusRequest) (*ebbpb.DAGStatusResponse, error) {
	ans, err := Query(ctx, s.am.loop, core.DAGQuery{ID: r.DagId})
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	if !ans.Known {
		return nil, status.Errorf(codes.NotFound, "no DAG %q", r.DagId)
	}
	return &ebbpb.DAGStatusResponse{Dag: dagStatusPB(s.am.view(ans.Status))}, nil
}

func (s *clientService) KillDAG(ctx context.Context, r *ebbpb.KillDAGRequest) (*ebbpb.KillDAGResponse, error) {
	rep, err := s.am.loop.Ask(ctx, core.DAGKillRequested{ID: r.DagId, Reason: r.Reason})
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	if rep.Err != nil {
		return nil, status.Error(codes.NotFound, rep.Err.Error())
	}
	return &ebbpb.KillDAGResponse{}, nil
}

func (s *clientService) ListDAGs(ctx context.Context, r *ebbpb.ListDAGsRequest) (*ebbpb.ListDAGsResponse, error) {
	all, err := Query(ctx, s.am.loop, core.DAGsQuery{})
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	for i, d := range all {
		all[i] = s.am.view(d)
	}
	page, total, next, err := DAGPage{State: r.GetState(), Limit: int(r.GetLimit()), Before: r.GetBefore()}.page(all)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	resp := &ebbpb.ListDAGsResponse{Total: int32(total), NextBefore: next}
	for _, d := range page {
		resp.Dags = append(resp.Dags, dagStatusPB(d))
	}
	return resp, nil
}

func (s *clientService) ClusterStatus(ctx context.Context, _ *ebbpb.ClusterStatusRequest) (*ebbpb.ClusterStatusResponse, error) {
	cl, err := Query(ctx, s.am.loop, core.ClusterQuery{})
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	groups, nodes, trs := cl.Groups, cl.Nodes, cl.Transitions
	resp := &ebbpb.ClusterStatusResponse{}
	for _, g := range groups {
		resp.Groups = append(resp.Groups, &ebbpb.GroupStatus{Name: g.Name, State: g.State, UsagePercent: g.UsagePercent,
			Workers: int32(g.Workers), PendingWorkers: int32(g.PendingWorkers), Nodes: int32(g.Nodes),
			QueuedAttempts: int32(g.QueuedAttempts), RunningAttempts: int32(g.RunningAttempts),
			PreemptWarned: int32(g.Preempt.Warned), PreemptGivenBack: int32(g.Preempt.GivenBack), PreemptLost: int32(g.Preempt.Lost), Evicted: int32(g.Preempt.Evicted),
			SlowstartKilled: int32(g.Preempt.SlowStartKilled), TargetP95Slowdown: g.TargetP95,
			MeasuredP95Slowdown: g.MeasuredP95, MeasuredDags: int32(g.MeasuredDAGs)})
	}
	for _, t := range trs {
		resp.Transitions = append(resp.Transitions, &ebbpb.Transition{UnixMs: t.At.UnixMilli(), Group: t.Group, From: t.From, To: t.To, Reason: t.Reason})
	}
	for _, n := range nodes {
		resp.Nodes = append(resp.Nodes, &ebbpb.NodeStatus{Id: n.ID, CapacityMb: n.CapacityMB, UsedMb: n.UsedMB, Workers: int32(n.Workers), Draining: n.Draining})
	}
	return resp, nil
}

func (s *clientService) SetAutoscale(ctx context.Context, r *ebbpb.SetAutoscaleRequest) (*ebbpb.SetAutoscaleResponse, error) {
	rep, err := s.am.loop.Ask(ctx, core.AutoscaleSet{Group: r.Group, OutPercent: int(r.OutPercent), InPercent: int(r.InPercent), MinHosts: int(r.MinHosts)})
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	if rep.Err != nil {
		return nil, status.Error(codes.InvalidArgument, rep.Err.Error())
	}
	s.am.log.Infof("autoscaling retuned by a client: group %q out %d%% in %d%% min hosts %d", r.Group, r.OutPercent, r.InPercent, r.MinHosts)
	return &ebbpb.SetAutoscaleResponse{}, nil
}

// SetAutoscaleTarget retunes the latency target; the core checks the value
// against the key's range and refuses a target nothing would read.
func (s *clientService) SetAutoscaleTarget(ctx context.Context, r *ebbpb.SetAutoscaleTargetRequest) (*ebbpb.SetAutoscaleTargetResponse, error) {
	rep, err := s.am.loop.Ask(ctx, core.AutoscaleTargetSet{Group: r.Group, P95Slowdown: r.P95Slowdown})
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	if rep.Err != nil {
		return nil, status.Error(codes.InvalidArgument, rep.Err.Error())
	}
	s.am.log.Infof("latency target retuned by a client: group %q p95 slowdown %g", r.Group, r.P95Slowdown)
	return &ebbpb.SetAutoscaleTargetResponse{}, nil
}

func (s *clientService) Shutdown(ctx context.Context, r *ebbpb.ShutdownRequest) (*ebbpb.ShutdownResponse, error) {
	s.am.Stop(r.Reason)
	return &ebbpb.ShutdownResponse{}, nil
}

func dagStatusPB(d core.DAGStatus) *ebbpb.DAGStatus {
	p := &ebbpb.DAGStatus{DagId: d.ID, Name: d.Name, State: d.State.String(), Diagnostics: d.Diagnostics,
		TotalTasks: int32(d.TotalTasks), SucceededTasks: int32(d.Succeeded), RunningAttempts: int32(d.Running),
		FailedAttempts: int32(d.Failed), SubmitUnixMs: d.Submit.UnixMilli(), Output: d.Output, Group: d.Group,
		SReq: d.SReq, Utility: d.Utility, Slots: int32(d.Slots), Recovered: d.Recovered,
		BackupsLaunched: int32(d.Speculation.Launched), BackupsWon: int32(d.Speculation.Won), BackupsLost: int32(d.Speculation.Lost),
		SlowNodes: d.SlowNodes, Counters: CountersPB(d.Counters)}
	if !d.Finish.IsZero() {
		p.FinishUnixMs = d.Finish.UnixMilli()
	}
	if !d.Goal.IsZero() {
		p.GoalUnixMs = d.Goal.UnixMilli()
	}
	for _, v := range d.Vertices {
		state := "RUNNING"
		if v.Succeeded == v.Total {
			state = "SUCCEEDED"
		}
		p.Vertices = append(p.Vertices, &ebbpb.VertexStatus{Name: v.Name, State: state, Total: int32(v.Total),
			Succeeded: int32(v.Succeeded), Running: int32(v.Running)})
	}
	return p
}

// DAGStatusFromPB is the client side of dagStatusPB.
func DAGStatusFromPB(p *ebbpb.DAGStatus) core.DAGStatus {
	d := core.DAGStatus{ID: p.DagId, Name: p.Name, Diagnostics: p.Diagnostics, Group: p.Group, Output: p.Output,
		TotalTasks: int(p.TotalTasks), Succeeded: int(p.SucceededTasks), Running: int(p.RunningAttempts),
		Failed: int(p.FailedAttempts), SReq: p.SReq, Utility: p.Utility, Slots: int(p.Slots), Recovered: p.Recovered,
		Speculation: core.SpeculationCounts{Launched: int(p.BackupsLaunched), Won: int(p.BackupsWon), Lost: int(p.BackupsLost)},
		SlowNodes:   p.SlowNodes, Counters: CountersFromPB(p.Counters)}
	d.State, _ = core.ParseDAGState(p.State)
	d.Submit = time.UnixMilli(p.SubmitUnixMs)
	if p.FinishUnixMs != 0 {
		d.Finish = time.UnixMilli(p.FinishUnixMs)
	}
	for _, v := range p.Vertices {
		d.Vertices = append(d.Vertices, core.VertexStatus{Name: v.Name, Total: int(v.Total), Succeeded: int(v.Succeeded), Running: int(v.Running)})
	}
	return d
}

// SubmitRequest is a DAG as a client sends it.
type SubmitRequest struct {
	Spec     []byte
	SpecName string
	BaseDir  string
	Output   string
	// Overwrite replaces an output that holds results, on success (as
	// the spec's overwrite does).
	Overwrite bool
	Client    string
}

// Submit parses, validates and resolves a DAG (listing its inputs and
// checking its output: IO that happens here, off the loop), then hands it
// to the Core. An output that already holds results is refused here,
// before the Core asks for any worker, unless the DAG or the request says
// overwrite. With a recovery log the DAG is acknowledged only once its
// record is durable.
func (a *AM) Submit(ctx context.Context, r SubmitRequest) (string, error) {
	name := specName(r)
	spec, out, err := resolveSpec(r, a.opts.DefaultFS)
	if err != nil {
		return "", err
	}
	if sc, ok := a.loop.world.(SpecChecker); ok {
		if err := sc.CheckSpec(spec); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
	}
	plan := outputPlan{output: out, stagingID: commit.NewStagingID(), overwrite: spec.Overwrite || r.Overwrite}
	if out != "" {
		if plan.existed, err = a.checkOutput(spec, out, plan.overwrite); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
	}
	splits, err := ComputeSplits(spec, a.fs.List)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var ticket uint64
	adm := &admission{
		admit: func(_ time.Time, nextID string, sub *core.Submission) error {
			if sub.Output == "" && a.outputRoot != "" {
				// Decided by the AM so every DAG has somewhere to commit.
				sub.Output = defaultOutput(a.outputRoot, spec.Name, nextID, plan.stagingID)
			}
			if sub.Output != "" {
				// Checked again here, where submissions are one at a time:
				// another DAG may have claimed the output since the check.
				if other, busy := a.outputUser(sub.Output); busy {
					return &OutputInUseError{Output: sub.Output, DAG: other}
				}
				plan.output = sub.Output
				sub.Staging = commit.Staging(sub.Output, plan.stagingID)
			}
			return nil
		},
		accepted: func(now time.Time, id string, sub core.Submission) error {
			if sub.Output != "" {
				a.claimOutput(id, plan)
			}
			// On the loop, so the record precedes every record of the
			// DAG's tasks.
			var err error
			ticket, err = a.recordAccepted(id, r, sub, plan, now)
			return err
		},
	}
	sub := core.Submission{Spec: spec, Splits: splits, Output: out, Client: r.Client}
	rep, err := a.loop.ask(ctx, item{ev: core.DAGArrived{Submission: sub}, adm: adm})
	if err != nil {
		return "", err
	}
	id, serr := rep.DAGID, rep.Err
	var se *core.SubmitError
	var ue *OutputInUseError
	if errors.As(serr, &se) || errors.As(serr, &ue) {
		return "", fmt.Errorf("%s: %w", name, serr)
	}
	if serr != nil {
		return "", serr
	}
	if err := a.syncAccepted(ctx, id, ticket); err != nil {
		return "", err
	}
	return id, nil
}

func specName(r SubmitRequest) string {
	if r.SpecName == "" {
		return "dag"
	}
	return r.SpecName
}

// resolveSpec parses and validates a DAG and resolves its relative inputs
// and output against the client's directory.
func resolveSpec(r SubmitRequest, defaultFS string) (*dag.Spec, string, error) {
	spec, err := dag.Parse(specName(r), r.Spec)
	if err != nil {
		return nil, "", err
	}
	resolve := func(p string) string {
		if rest, ok := strings.CutPrefix(p, "hdfs:///"); ok && strings.HasPrefix(defaultFS, "hdfs://") {
			return strings.TrimSuffix(defaultFS, "/") + "/" + rest
		}
		if p == "" || strings.Contains(p, "://") || filepath.IsAbs(p) || r.BaseDir == "" {
			return p
		}
		return filepath.Join(r.BaseDir, p)
	}
	for i := range spec.Vertices {
		for j, in := range spec.Vertices[i].Inputs {
			spec.Vertices[i].Inputs[j] = resolve(in)
		}
		if st := spec.Vertices[i].Stream; st != nil {
			for j, f := range st.Files {
				st.Files[j] = resolve(f)
			}
		}
	}
	out := spec.Output
	if r.Output != "" {
		out = r.Output
	}
	return spec, resolve(out), nil
}

// CountersPB is counters on the wire (AttemptUpdate, DAGStatus).
func CountersPB(cs []core.Counter) []*ebbpb.Counter {
	var out []*ebbpb.Counter
	for _, c := range cs {
		out = append(out, &ebbpb.Counter{Group: c.Group, Name: c.Name, Value: c.Value})
	}
	return out
}

// CountersFromPB is the other side of CountersPB.
func CountersFromPB(ps []*ebbpb.Counter) []core.Counter {
	var out []core.Counter
	for _, p := range ps {
		out = append(out, core.Counter{Group: p.GetGroup(), Name: p.GetName(), Value: p.GetValue()})
	}
	return out
}
