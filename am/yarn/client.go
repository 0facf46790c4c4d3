package yarn

import (
	"context"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// Client is the ApplicationClientProtocol as ebb's commands need it
// (submit, reports, kill, nodes), in this package's types. Given several
// ResourceManagers (RM HA) it talks to one and fails over to the next
// when that one cannot be reached or answers that it is standby
// (failover.go).
type Client struct{ rms *failover }

// NewClient returns a client of the RM at addr acting as user (SIMPLE
// authentication, as on an insecure cluster).
func NewClient(addr, user string, opts ...yarnrpc.Option) *Client {
	return NewHAClient([]string{addr}, user, opts...)
}

// NewHAClient returns a client of the RMs at addrs (one per rm-id, in
// order), failing over between them.
func NewHAClient(addrs []string, user string, opts ...yarnrpc.Option) *Client {
	return &Client{rms: newFailover(addrs, func(a string) appClient { return yarnrpc.NewApplicationClient(a, user, opts...) })}
}

// SetRetry sets how calls outlast an RM restart or failover (Hadoop's
// defaults, HadoopRetry, until set); call it before the first call.
func (c *Client) SetRetry(r Retry) { c.rms.ring.retry = r }

// SetRetryLog makes the client tell logf of its retries (nil: silent).
func (c *Client) SetRetryLog(logf func(format string, args ...any)) { c.rms.ring.logf = logf }

// Close ends the connections.
func (c *Client) Close() error { return c.rms.close() }

// NewTokenClient returns a client of the RMs at addrs (one, or one per
// rm-id under RM HA) that authenticates with an RM delegation token (the
// AM on a secure cluster).
func NewTokenClient(addrs []string, tok yarnrpc.Token, opts ...yarnrpc.Option) *Client {
	return &Client{rms: newFailover(addrs, func(a string) appClient { return yarnrpc.NewApplicationClientWithToken(a, tok, opts...) })}
}

// NewApp reserves an application id; Resource is the largest container.
func (c *Client) NewApp(ctx context.Context) (AppID, Resource, error) {
	var r *hadooppb.GetNewApplicationResponseProto
	err := c.rms.do(ctx, func(ac appClient) (err error) { r, err = ac.GetNewApplication(ctx); return err })
	if err != nil {
		return AppID{}, Resource{}, err
	}
	return appIDFrom(r.GetApplicationId()), resourceFrom(r.GetMaximumCapability()), nil
}

// AppSpec is an application to submit: its AM container and how YARN
// should treat it.
type AppSpec struct {
	ID          AppID
	Name        string
	Queue       string
	Type        string
	Resource    Resource
	MaxAttempts int
	// AttemptFailuresValidity: only AM failures this recent count towards
	// MaxAttempts (attempt_failures_validity_interval); 0: every one.
	AttemptFailuresValidity time.Duration
	// Priority is the application's priority; nil leaves it to the queue.
	Priority *int32
	// NodeLabel: the node label (partition) the AM's container runs in
	// ("": the queue's default). Only the AM's: the workers' asks carry
	// their groups' own.
	NodeLabel string
	Tags      []string
	AM        Launch
	// KeepContainers: the workers outlive a failed AM attempt, for the next
	// one to take over (keep_containers_across_application_attempts).
	KeepContainers bool
	// RolledLogs, when set, is the rolled_logs_include_pattern of the
	// application's LogAggregationContext: NodeManagers that monitor
	// rolling upload matching files of running containers (and delete
	// them). Empty: no context, logs are aggregated when containers end.
	RolledLogs string
}

// Submit submits an application under an id from NewApp.
func (c *Client) Submit(ctx context.Context, s AppSpec) error {
	sub, err := submissionContext(s)
	if err != nil {
		return err
	}
	// Submitting again to the RM that took over is safe: the application
	// id makes it the same submission.
	return c.rms.do(ctx, func(ac appClient) error { return ac.SubmitApplication(ctx, sub) })
}

// submissionContext is the ApplicationSubmissionContext s stands for.
func submissionContext(s AppSpec) (*hadooppb.ApplicationSubmissionContextProto, error) {
	clc, err := launchProto(s.AM)
	if err != nil {
		return nil, err
	}
	sub := &hadooppb.ApplicationSubmissionContextProto{
		ApplicationId:   appIDProto(s.ID),
		ApplicationName: proto.String(s.Name),
		AmContainerSpec: clc,
		Resource:        resourceProto(s.Resource),
		ApplicationType: proto.String(s.Type),
		ApplicationTags: s.Tags,
	}
	if s.Queue != "" {
		sub.Queue = proto.String(s.Queue)
	}
	if s.MaxAttempts > 0 {
		sub.MaxAppAttempts = proto.Int32(int32(s.MaxAttempts))
	}
	if s.AttemptFailuresValidity > 0 {
		sub.AttemptFailuresValidityInterval = proto.Int64(s.AttemptFailuresValidity.Milliseconds())
	}
	if s.Priority != nil {
		sub.Priority = &hadooppb.PriorityProto{Priority: proto.Int32(*s.Priority)}
	}
	if s.NodeLabel != "" {
		// On the AM's own request, not the context's node_label_expression:
		// that one is every request's default, and would move the workers
		// of unlabelled groups into the AM's partition too.
		sub.AmContainerResourceRequest = []*hadooppb.ResourceRequestProto{{
			Priority: &hadooppb.PriorityProto{Priority: proto.Int32(0)}, ResourceName: proto.String(AnyHost),
			Capability: resourceProto(s.Resource), NumContainers: proto.Int32(1), RelaxLocality: proto.Bool(true),
			NodeLabelExpression: proto.String(s.NodeLabel)}}
	}
	if s.KeepContainers {
		sub.KeepContainersAcrossApplicationAttempts = proto.Bool(true)
	}
	if s.RolledLogs != "" {
		sub.LogAggregationContext = logAggregationProto(s.RolledLogs)
	}
	return sub, nil
}

// AppState is YARN's application state.
type AppState int32

const (
	StateNew       = AppState(hadooppb.YarnApplicationStateProto_NEW)
	StateNewSaving = AppState(hadooppb.YarnApplicationStateProto_NEW_SAVING)
	StateSubmitted = AppState(hadooppb.YarnApplicationStateProto_SUBMITTED)
	StateAccepted  = AppState(hadooppb.YarnApplicationStateProto_ACCEPTED)
	StateRunning   = AppState(hadooppb.YarnApplicationStateProto_RUNNING)
	StateFinished  = AppState(hadooppb.YarnApplicationStateProto_FINISHED)
	StateFailed    = AppState(hadooppb.YarnApplicationStateProto_FAILED)
	StateKilled    = AppState(hadooppb.YarnApplicationStateProto_KILLED)
)

func (s AppState) String() string { return hadooppb.YarnApplicationStateProto(s).String() }

// Done: the application has ended.
func (s AppState) Done() bool { return s == StateFinished || s == StateFailed || s == StateKilled }

// AppReport is the RM's report of an application.
type AppReport struct {
	ID          AppID
	Name        string
	User        string
	Queue       string
	Type        string
	Host        string
	RPCPort     int32
	State       AppState
	Final       FinalStatus
	TrackingURL string
	// AMURL is the URL the AM registered (its own status page), where
	// TrackingURL is the RM's proxy for it.
	AMURL       string
	Diagnostics string
	Progress    float32
	StartMs     int64
	Tags        []string
	// Attempt is the number of the current application attempt (1, 2…).
	Attempt int32
}

func reportFrom(r *hadooppb.ApplicationReportProto) AppReport {
	final := map[hadooppb.FinalApplicationStatusProto]FinalStatus{
		hadooppb.FinalApplicationStatusProto_APP_SUCCEEDED: Succeeded, hadooppb.FinalApplicationStatusProto_APP_FAILED: Failed,
		hadooppb.FinalApplicationStatusProto_APP_KILLED: Killed,
	}[r.GetFinalApplicationStatus()]
	return AppReport{ID: appIDFrom(r.GetApplicationId()), Name: r.GetName(), User: r.GetUser(), Queue: r.GetQueue(),
		Type: r.GetApplicationType(), Host: r.GetHost(), RPCPort: r.GetRpcPort(), State: AppState(r.GetYarnApplicationState()),
		Final: final, TrackingURL: r.GetTrackingUrl(), AMURL: r.GetOriginalTrackingUrl(), Diagnostics: r.GetDiagnostics(), Progress: r.GetProgress(), StartMs: r.GetStartTime(),
		Tags: r.GetApplicationTags(), Attempt: r.GetCurrentApplicationAttemptId().GetAttemptId()}
}

// Report returns one application's report.
func (c *Client) Report(ctx context.Context, id AppID) (AppReport, error) {
	var r *hadooppb.ApplicationReportProto
	err := c.rms.do(ctx, func(ac appClient) (err error) { r, err = ac.GetApplicationReport(ctx, appIDProto(id)); return err })
	if err != nil {
		return AppReport{}, err
	}
	return reportFrom(r), nil
}

// Apps lists applications of the given types, states and users (empty:
// any).
func (c *Client) Apps(ctx context.Context, types []string, states []AppState, users []string) ([]AppReport, error) {
	req := &hadooppb.GetApplicationsRequestProto{ApplicationTypes: types, Users: users}
	for _, s := range states {
		req.ApplicationStates = append(req.ApplicationStates, hadooppb.YarnApplicationStateProto(s))
	}
	var rs []*hadooppb.ApplicationReportProto
	err := c.rms.do(ctx, func(ac appClient) (err error) { rs, err = ac.GetApplications(ctx, req); return err })
	if err != nil {
		return nil, err
	}
	out := make([]AppReport, 0, len(rs))
	for _, r := range rs {
		out = append(out, reportFrom(r))
	}
	return out, nil
}

// Kill asks the RM to kill an application; false while it is still going.
func (c *Client) Kill(ctx context.Context, id AppID, diagnostics string) (bool, error) {
	var done bool
	err := c.rms.do(ctx, func(ac appClient) (err error) {
		done, err = ac.ForceKillApplication(ctx, appIDProto(id), diagnostics)
		return err
	})
	return done, err
}

// Labels returns the cluster's node labels (Known: the RM answered).
func (c *Client) Labels(ctx context.Context) (Labels, error) {
	var ls []*hadooppb.NodeLabelProto
	err := c.rms.do(ctx, func(ac appClient) (err error) { ls, err = ac.GetClusterNodeLabels(ctx); return err })
	if err != nil {
		return Labels{}, err
	}
	out := Labels{Known: true}
	for _, l := range ls {
		out.Names = append(out.Names, l.GetName())
	}
	slices.Sort(out.Names)
	return out, nil
}

// Nodes returns the RUNNING NodeManagers.
func (c *Client) Nodes(ctx context.Context) ([]NodeReport, error) {
	var ns []*hadooppb.NodeReportProto
	err := c.rms.do(ctx, func(ac appClient) (err error) {
		ns, err = ac.GetClusterNodes(ctx, hadooppb.NodeStateProto_NS_RUNNING)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]NodeReport, 0, len(ns))
	for _, n := range ns {
		out = append(out, nodeReportFrom(n))
	}
	return out, nil
}

// logAggregationProto aggregates every file when a container or the
// application ends (as without a context) and, while it runs, the files
// matching rolled. Every pattern is set explicitly: the proto's default
// rolled_logs_exclude_pattern is ".*", which would exclude everything
// should the NodeManager read an unset field as its default.
func logAggregationProto(rolled string) *hadooppb.LogAggregationContextProto {
	return &hadooppb.LogAggregationContextProto{
		IncludePattern:           proto.String(".*"),
		ExcludePattern:           proto.String(""),
		RolledLogsIncludePattern: proto.String(rolled),
		RolledLogsExcludePattern: proto.String(""),
	}
}
