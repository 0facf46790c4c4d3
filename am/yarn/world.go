package yarn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/yarnrpc"
)

// WorkerLaunch is what every worker container gets.
type WorkerLaunch struct {
	// Binary is the ebb executable in the staging directory, linked as
	// ./ebb in the container.
	Binary LocalResource
	// AMAddress and Secret are what workers connect with. The secret goes
	// in the container's token file (workerCredentials), never in its
	// environment or command, which the NM copies into the container's
	// log directory (launch_container.sh).
	AMAddress string
	Secret    string
	// Env is added to every worker's environment (HADOOP_USER_NAME, ...).
	Env map[string]string
	// AMFile, when set, is where the current AM attempt publishes its
	// address (an hdfs:// URL in the staging directory): a worker whose
	// AM died reads it to rejoin the next attempt.
	AMFile string
	// LogRollKB and LogRollCount roll each worker's worker.log (`ebb
	// worker --log-roll-kb/--log-roll-count`): ebb.log.roll.size.kb and
	// ebb.log.roll.count. 0 KB: never rolled.
	LogRollKB    int64
	LogRollCount int
	// HDFSRetrySpec is dfs.client.retry.policy.spec for the workers'
	// commits (`ebb worker --hdfs-retry-spec`); "" leaves the worker's
	// default, Hadoop's.
	HDFSRetrySpec string
	// Tokens is a Credentials blob (Writable format) for every worker's
	// container: on a secure cluster the HDFS delegation tokens the AM got
	// from the client, which the worker finds at
	// $HADOOP_TOKEN_FILE_LOCATION. Never the AMRMToken: a worker must not
	// be able to speak for the AM.
	Tokens []byte
}

// Options configure the yarn world.
type Options struct {
	RM RM
	NM NM
	// Heartbeat is mr3.am.rm.heartbeat.interval.ms.
	Heartbeat time.Duration
	// InitialAllocation is ebb.am.rm.heartbeat.initial.interval.ms: the
	// first wait between allocates while containers are outstanding
	// (Poll); 0 or more than Heartbeat means Heartbeat.
	InitialAllocation time.Duration
	// Clock is the heartbeat's time (nil: the wall clock).
	Clock Clock
	// Host, Port and TrackingURL are registered with the RM: the AM's
	// client address and its status page.
	Host        string
	Port        int32
	TrackingURL string
	// FinalTrackingURL is what the application's tracking URL becomes at
	// unregister. It must outlive the AM: "" makes the RM (its UI, its web
	// proxy, `yarn application -list`) show its own application page,
	// where the AM's status page would be a port about to close.
	FinalTrackingURL string
	Worker           WorkerLaunch
	// InAM is the AM's own container, for the in-AM worker (amworker.go).
	InAM InAM
	// Nodes are the cluster's NodeManagers at start (getClusterNodes).
	Nodes []NodeReport
	// Labels are the cluster's node labels at start (getClusterNodeLabels).
	Labels Labels
	// IncludePort: yarn.scheduler.include-port-in-node-name.
	IncludePort bool
	Log         *logrus.Logger
	// Events is where the world's reports go (the AM's loop): typed as
	// the one method it needs so that this package, and the gateway's
	// yarnclient that uses its client half, need not import package am.
	Events interface{ Send(core.Event) }
	// OnShutdown is called once when the RM orders the AM to stop
	// (AM_SHUTDOWN) or no longer knows this attempt.
	OnShutdown func(reason string)
}

// World is the YARN world. The Core's calls (WantWorkers, ...) come on the
// loop goroutine; the heartbeat runs on its own goroutine; both meet in
// the Book under mu. Events for the Core go through Options.Events.
type World struct {
	o    Options
	mu   sync.Mutex
	book *Book
	// nodes by host:port, from getClusterNodes and allocate's updates.
	nodes  map[string]NodeReport
	respID int32
	// resyncs: heartbeats that must send the whole table again. After a
	// failed allocate the RM may have run it; the retry then carries the
	// same response_id, and the RM answers a repeated id from its cache,
	// ignoring the asks in it. So the table goes out twice.
	resyncs  int
	reg      Registration
	nudge    chan struct{}
	cancel   context.CancelFunc
	hbDone   chan struct{}
	launches sync.WaitGroup
	shutOnce sync.Once
	stats    Stats
	// progress is what allocate reports to the RM (its UI shows it),
	// refreshed from the loop's summary on every tick.
	progress float32
	// headroomMB: the last headroom told to the Core (headroomSent: one
	// was); only beat reads and writes them.
	headroomMB   int64
	headroomSent bool
	// tokens replace Options.Worker.Tokens once the AM has fresh ones
	// (SetWorkerTokens); launches read them from any goroutine.
	tokensMu sync.Mutex
	tokens   []byte
	// conf is what ConfirmCurrent waits on (confirm.go), under mu.
	conf confirmState
}

// SetWorkerTokens makes tokens (a Credentials blob) the delegation tokens
// of every worker launched from now on: the NodeManager localises the
// worker's files from HDFS with them, and the worker reads and writes
// HDFS with them, so they must not be ones past their lifetime.
func (w *World) SetWorkerTokens(tokens []byte) {
	w.tokensMu.Lock()
	defer w.tokensMu.Unlock()
	w.tokens = append([]byte(nil), tokens...)
}

func (w *World) workerTokens() []byte {
	w.tokensMu.Lock()
	defer w.tokensMu.Unlock()
	if w.tokens != nil {
		return w.tokens
	}
	return w.o.Worker.Tokens
}

// Stats are the world's measurements, for logs and reports.
type Stats struct {
	Heartbeats      int
	AllocateTotal   time.Duration
	AllocateMax     time.Duration
	Allocated       int // containers received
	Released        int // surplus given back
	Launched        int // started on an NM
	LaunchFailed    int
	CompletedLost   int // held containers that completed
	Resyncs         int // re-registrations with an RM that restarted or took over
	ResyncSurplus   int // containers released at a resync: the RM had them live, the AM never took them
	FirstAllocation time.Time
}

// MeanAllocate is the mean allocate round-trip.
func (s Stats) MeanAllocate() time.Duration {
	if s.Heartbeats == 0 {
		return 0
	}
	return s.AllocateTotal / time.Duration(s.Heartbeats)
}

// New builds the world; Register and Start bring it up.
func New(o Options) *World {
	if o.Log == nil {
		o.Log = logrus.StandardLogger()
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = time.Second
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	w := &World{o: o, book: NewBook(), nodes: map[string]NodeReport{}, nudge: make(chan struct{}, 1)}
	w.book.IncludePort = o.IncludePort
	for _, n := range o.Nodes {
		w.nodes[n.Node] = n
		w.book.SetRack(n.Node, n.Rack)
	}
	return w
}

// Register registers the attempt with the RM and remembers the maximum
// container size and the NMTokens of containers from earlier attempts.
func (w *World) Register(ctx context.Context) (Registration, error) {
	reg, err := w.o.RM.Register(ctx, w.o.Host, w.o.Port, w.o.TrackingURL)
	if err != nil {
		return reg, fmt.Errorf("yarn: registering the AM: %w", err)
	}
	w.mu.Lock()
	w.reg = reg
	w.respID = 0
	for _, c := range reg.Previous {
		w.book.Adopt(c)
	}
	w.mu.Unlock()
	if len(reg.Previous) > 0 {
		w.o.Log.Infof("yarn: %d containers of earlier attempts are still running; their workers may reconnect", len(reg.Previous))
	}
	for _, t := range reg.NMTokens {
		w.o.NM.SetToken(t.Node, t.Token)
	}
	return reg, nil
}

// Max is the largest container the RM grants (from the registration).
func (w *World) Max() Resource {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reg.Max
}

// Stats returns the measurements so far.
func (w *World) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Start runs the heartbeat until Close.
func (w *World) Start() {
	w.reportNodes()
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.hbDone = make(chan struct{})
	go w.heartbeat(ctx)
}

// reportNodes tells the Core the cluster's running nodes: it packs against
// the whole cluster, not just the nodes its workers are on
// (ebb.packing.min.nodes, a group's first asks), and around what others
// hold there.
func (w *World) reportNodes() {
	if w.o.Events == nil {
		return
	}
	var nodes []core.ClusterNode
	w.mu.Lock()
	for _, n := range w.o.Nodes {
		if n.Running {
			nodes = append(nodes, clusterNode(n, w.book.HeldMB(n.Node)))
		}
	}
	w.mu.Unlock()
	w.o.Events.Send(core.NodesReported{Nodes: nodes})
}

func (w *World) heartbeat(ctx context.Context) {
	defer close(w.hbDone)
	poll := Poll{Initial: w.o.InitialAllocation, Interval: w.o.Heartbeat}
	// A new want wakes the heartbeat early (the RM hears of new asks at
	// once), but never sooner than minGap after the last allocate, so a
	// burst of changes costs one call.
	minGap := min(w.o.Heartbeat, 100*time.Millisecond)
	var last time.Time
	wait := w.o.Heartbeat
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.o.Clock.After(wait):
		case <-w.nudge:
			if gap := minGap - w.o.Clock.Now().Sub(last); gap > 0 {
				select {
				case <-ctx.Done():
					return
				case <-w.o.Clock.After(gap):
				}
			}
		}
		last = w.o.Clock.Now()
		if err := w.beat(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			w.o.Log.Warnf("yarn: heartbeat: %v", err)
			if errors.Is(err, yarnrpc.ErrAttemptNotFound) {
				w.noteBeat(time.Time{}, false, "the ResourceManager no longer knows this attempt")
				w.shutdown("the ResourceManager no longer knows this attempt")
				return
			}
			var ue *RMUnreachableError
			if errors.As(err, &ue) {
				// The bound of the RM retry keys ran out: as Hadoop's AMs,
				// give up (the error names the RMs and the bound).
				w.shutdown(err.Error())
				return
			}
		}
		w.mu.Lock()
		outstanding := w.book.Outstanding()
		w.mu.Unlock()
		wait = poll.Next(outstanding)
	}
}

func (w *World) shutdown(reason string) {
	w.shutOnce.Do(func() {
		w.o.Log.Warnf("yarn: shutting down: %s", reason)
		if w.o.OnShutdown != nil {
			w.o.OnShutdown(reason)
		}
	})
}

// beat is one allocate round: send the book's changes, take in what came
// back, launch what was kept and tell the Core about completed containers.
// Only the heartbeat goroutine calls it (and Close, after that goroutine
// ended), so two allocates never overlap.
func (w *World) beat(ctx context.Context) error {
	w.mu.Lock()
	if w.resyncs > 0 {
		w.resyncs--
		w.book.Resync()
	}
	req := w.book.Request()
	req.ResponseID = w.respID
	req.Progress = w.progress
	w.mu.Unlock()
	start := time.Now()
	resp, err := w.o.RM.Allocate(ctx, req)
	rtt := time.Since(start)
	switch {
	case errors.Is(err, yarnrpc.ErrAttemptNotFound): // heartbeat notes it
	case errors.Is(err, yarnrpc.ErrInvalidToken):
		// The RM refuses this attempt's AMRMToken: it has unregistered the
		// attempt (expired it and started the next).
		w.noteBeat(start, false, fmt.Sprintf("the ResourceManager refuses this attempt's token (%v)", err))
	default:
		w.noteBeat(start, err == nil, "")
	}
	if err != nil {
		w.mu.Lock()
		w.resyncs = 2 // the changes may not have arrived: send all again
		w.mu.Unlock()
		if errors.Is(err, yarnrpc.ErrNotRegistered) {
			return w.reregister(ctx, "the ResourceManager does not know this AM (restarted?)")
		}
		return fmt.Errorf("allocate: %w", err)
	}
	w.mu.Lock()
	w.stats.Heartbeats++
	w.stats.AllocateTotal += rtt
	w.stats.AllocateMax = max(w.stats.AllocateMax, rtt)
	w.respID = resp.ResponseID
	for _, n := range resp.UpdatedNodes {
		w.nodes[n.Node] = n
		w.book.SetRack(n.Node, n.Rack)
	}
	changed := make([]core.NodeChanged, 0, len(resp.UpdatedNodes))
	for _, n := range resp.UpdatedNodes {
		changed = append(changed, nodeChanged(n, w.book.HeldMB(n.Node)))
	}
	keep, released := w.book.Allocated(resp.Allocated)
	lost := w.book.Completed(resp.Completed)
	w.stats.Allocated += len(resp.Allocated)
	w.stats.Released += len(released)
	w.stats.CompletedLost += len(lost)
	if len(resp.Allocated) > 0 && w.stats.FirstAllocation.IsZero() {
		w.stats.FirstAllocation = time.Now()
	}
	w.mu.Unlock()
	if resp.AMRMToken != nil {
		w.o.Log.Infof("yarn: the ResourceManager rolled the AMRMToken")
	}
	for _, t := range resp.NMTokens {
		w.o.NM.SetToken(t.Node, t.Token)
	}
	if len(req.Asks) > 0 || len(resp.Allocated) > 0 || len(resp.Completed) > 0 {
		w.o.Log.Infof("yarn: allocate #%d in %s: %d asks changed%s, %d released; got %d containers (%d kept), %d completed",
			resp.ResponseID, rtt.Round(time.Microsecond), len(req.Asks), describeAsks(req.Asks), len(req.Release), len(resp.Allocated), len(keep), len(resp.Completed))
	}
	for _, p := range keep {
		w.launch(p)
	}
	for _, c := range lost {
		w.lost(c)
	}
	// The RM lists a node here when its state changed (decommissioning,
	// unhealthy, lost, running again): the Core stops or resumes using it.
	for _, ev := range changed {
		w.o.Events.Send(ev)
	}
	if w.o.Events != nil {
		for _, ev := range preemptionEvents(resp, &w.headroomMB, &w.headroomSent) {
			w.o.Events.Send(ev)
		}
	}
	switch resp.Command {
	case CommandResync:
		return w.reregister(ctx, "the ResourceManager asked for a resync")
	case CommandShutdown:
		w.shutdown("the ResourceManager ordered AM_SHUTDOWN")
	}
	return nil
}

// lost tells the Core that the worker of a completed container is gone.
func (w *World) lost(c Completed) {
	id, reason := c.ID.String(), lostReason(c)
	w.o.Events.Send(core.WorkerGone{Worker: id, Reason: reason, Exited: true, Preempted: c.ExitStatus == exitPreempted})
}

func lostReason(c Completed) string {
	return fmt.Sprintf("container %s completed, exit status %d (%s): %s", c.ID, c.ExitStatus, ExitStatusText(c.ExitStatus), strings.TrimSpace(c.Diagnostics))
}

// reregister registers this attempt again with an RM that restarted (or
// took over) and does not know it, as Hadoop's AMRMClient does on
// ApplicationMasterNotRegisteredException or AM_RESYNC: response ids
// start again at 0, and the next allocate carries the whole ask table,
// every release not yet confirmed and the blacklist. Containers the RM
// lists as live that the AM never took (their allocate answer was lost)
// are released with them.
func (w *World) reregister(ctx context.Context, why string) error {
	w.o.Log.Warnf("yarn: re-registering: %s", why)
	reg, err := w.o.RM.Register(ctx, w.o.Host, w.o.Port, w.o.TrackingURL)
	if err != nil {
		return fmt.Errorf("yarn: re-registering the AM: %w", err)
	}
	w.mu.Lock()
	w.reg.Max, w.reg.Queue = reg.Max, reg.Queue
	w.respID = 0
	w.resyncs = 0
	surplus := w.book.Resynced(reg.Previous)
	w.stats.Resyncs++
	w.stats.Released += len(surplus)
	w.stats.ResyncSurplus += len(surplus)
	releases := len(w.book.release)
	held := len(w.book.held)
	w.mu.Unlock()
	for _, t := range reg.NMTokens {
		w.o.NM.SetToken(t.Node, t.Token)
	}
	w.o.Log.Infof("yarn: re-registered: %d containers held, %d live at the RM, %d surplus released (%v); the whole ask table and %d releases go with the next allocate",
		held, len(reg.Previous), len(surplus), surplus, releases)
	return nil
}

// WantWorkers records the group's total; the next heartbeat asks for the
// difference (sooner than the interval: a new want wakes it).
func (w *World) WantWorkers(_ time.Time, a core.WantWorkers) {
	g := a.Group
	w.mu.Lock()
	limit := w.reg.Max
	if tooBig(capability(g), limit) {
		w.mu.Unlock()
		w.refuse(g, limit)
		return
	}
	if why := noNodeHolds(capability(g), w.nodes); why != "" {
		w.mu.Unlock()
		w.refuseBecause(g, fmt.Sprintf("container group %s: %s", g.Name, why))
		return
	}
	if why := w.o.Labels.UnknownLabel(g.NodeLabel); why != "" {
		// A DAG recovered from the log skipped CheckSpec, and the RM
		// fails a whole allocate that asks for an unknown label.
		w.mu.Unlock()
		w.refuseBecause(g, fmt.Sprintf("container group %s: containerGroup.nodeLabel: %s", g.Name, why))
		return
	}
	w.book.Want(a)
	w.mu.Unlock()
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// CheckSpec refuses a DAG, as it is submitted, whose group names a node
// label the cluster does not have, or whose group or vertex asks for more
// of a resource type than a container can get (am.SpecChecker).
func (w *World) CheckSpec(spec *dag.Spec) error {
	if err := w.o.Labels.CheckGroupLabel(spec); err != nil {
		return err
	}
	w.mu.Lock()
	registered, most := w.reg.Max.MemoryMB > 0, mostPerContainer(w.reg.Max, w.nodes)
	w.mu.Unlock()
	if !registered {
		return nil // no maximum known yet: WantWorkers checks
	}
	return spec.CheckResources(most, TypesLimit)
}

// NodeMB is a NodeManager's memory (0 when unknown).
func (w *World) NodeMB(node string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nodes[node].MemoryMB
}

// Tick refreshes the progress the heartbeat reports from the loop's
// summary (the heartbeat itself keeps its own time).
func (w *World) Tick(_ time.Time, s core.Summary) {
	p := float32(1) // a session waiting for work has nothing left to do
	if s.TotalTasks > 0 {
		p = float32(s.DoneTasks) / float32(s.TotalTasks)
	}
	w.mu.Lock()
	w.progress = p
	w.mu.Unlock()
}

// Progress is core.RunningProgress as allocate carries it.
func Progress(dags []core.DAGStatus) float32 { return float32(core.RunningProgress(dags)) }

// WorkerStopped: the worker exits on its own; its container completes then
// and the RM reports it. It no longer counts for its group.
func (w *World) WorkerStopped(_ time.Time, worker string) {
	id, err := ParseContainerID(worker)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.book.Stopped(id)
	w.mu.Unlock()
}

// WorkerJoined: the worker of a container of an earlier attempt has
// reconnected; it counts for its group from now on.
func (w *World) WorkerJoined(_ time.Time, worker, group string) {
	id, err := ParseContainerID(worker)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.book.Moved(id, core.GroupInfo{Name: group})
	w.mu.Unlock()
}

// KillWorker: the Core lost a worker to silence; its container goes back
// to the RM, whose NodeManager kills whatever still runs in it.
func (w *World) KillWorker(_ time.Time, worker string) {
	id, err := ParseContainerID(worker)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.book.Release(id)
	w.mu.Unlock()
}

// WorkerMoved: same container, another group.
func (w *World) WorkerMoved(_ time.Time, worker string, g core.GroupInfo) {
	id, err := ParseContainerID(worker)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.book.Moved(id, g)
	w.mu.Unlock()
}

// Close stops the heartbeat, stops every worker container through its NM
// and gives every container back in a last allocate. It does not
// unregister: Finish does, with the final status.
func (w *World) Close() error {
	if w.cancel != nil {
		w.cancel()
		<-w.hbDone
	}
	w.launches.Wait()
	if why := w.Superseded(); why != "" {
		// The next attempt takes these containers over (kept across
		// attempts): stopping them would kill its workers.
		w.o.Log.Warnf("yarn: closed without stopping or releasing any container: this attempt is superseded (%s)", why)
		return w.o.NM.Close()
	}
	w.mu.Lock()
	cs := w.book.ReleaseAll()
	w.mu.Unlock()
	byNode := map[string][]ContainerID{}
	for _, c := range cs {
		byNode[c.Node] = append(byNode[c.Node], c.ID)
	}
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var errs []error
	for _, n := range nodes {
		if err := w.o.NM.Stop(ctx, n, byNode[n]); err != nil {
			errs = append(errs, fmt.Errorf("stopping containers on %s: %w", n, err))
		}
	}
	if err := w.beat(ctx); err != nil {
		errs = append(errs, fmt.Errorf("releasing containers: %w", err))
	}
	s := w.Stats()
	w.o.Log.Infof("yarn: closed: %d containers stopped; %d heartbeats, allocate round-trip mean %s max %s; %d allocated, %d launched, %d surplus released, %d launch failures",
		len(cs), s.Heartbeats, s.MeanAllocate().Round(time.Microsecond), s.AllocateMax.Round(time.Microsecond), s.Allocated, s.Launched, s.Released, s.LaunchFailed)
	if err := w.o.NM.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Finish unregisters with the final status, calling again until the RM
// confirms (it may still be saving the application's state). The RM's
// save takes some tens of milliseconds; the client is waiting for it, so
// the calls come 10 ms apart at first, doubling up to 100 ms (Hadoop's
// AMRMClient waits a fixed 100 ms).
func (w *World) Finish(ctx context.Context, status FinalStatus, diagnostics string) error {
	poll := Poll{Initial: finishFirstWait, Interval: finishMaxWait}
	for {
		done, err := w.o.RM.Finish(ctx, status, diagnostics, w.o.FinalTrackingURL)
		if err == nil && done {
			w.o.Log.Infof("yarn: unregistered: %s %s", status, diagnostics)
			return nil
		}
		if err != nil && !errors.Is(err, yarnrpc.ErrNotRegistered) {
			return fmt.Errorf("yarn: finishing the application: %w", err)
		}
		if errors.Is(err, yarnrpc.ErrNotRegistered) {
			if rerr := w.reregister(ctx, "the ResourceManager does not know this AM at unregister (restarted?)"); rerr != nil {
				return rerr
			}
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("yarn: finishing the application: %w", ctx.Err())
		case <-w.o.Clock.After(poll.Next(true)):
		}
	}
}

// The waits between unregister calls (see Finish).
const (
	finishFirstWait = 10 * time.Millisecond
	finishMaxWait   = 100 * time.Millisecond
)

func tooBig(r, limit Resource) bool {
	return limit.MemoryMB > 0 && r.MemoryMB > limit.MemoryMB || limit.VCores > 0 && r.VCores > limit.VCores ||
		typesTooBig(r, limit) != ""
}

// refuse fails the DAGs of a group whose workers no container can hold:
// the RM would reject the ask (or it would wait forever). They end FAILED
// with the limit in the diagnostics.
func (w *World) refuse(g core.GroupInfo, limit Resource) {
	reason := fmt.Sprintf("container group %s needs %d MB / %d vcores workers, more than the cluster's largest container (yarn.scheduler.maximum-allocation-mb=%d, yarn.scheduler.maximum-allocation-vcores=%d)",
		g.Name, g.MemoryMB, max(g.VCores, 1), limit.MemoryMB, limit.VCores)
	if why := typesTooBig(capability(g), limit); why != "" {
		reason = fmt.Sprintf("container group %s: %s", g.Name, why)
	}
	w.refuseBecause(g, reason)
}

// refuseBecause fails the DAGs of group g with reason.
func (w *World) refuseBecause(g core.GroupInfo, reason string) {
	w.o.Log.Error("yarn: " + reason)
	// WantWorkers runs on the loop's goroutine: post from another one (a
	// full event queue would otherwise block the goroutine that drains it).
	go w.o.Events.Send(core.GroupRefused{Group: g.Name, Reason: reason})
}
