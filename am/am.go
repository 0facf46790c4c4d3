package am

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/fsys"
	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Options configure an AM.
type Options struct {
	Core core.CoreOptions
	// Listen is where workers and clients connect (host:port; port 0 = any).
	Listen string
	// StatusListen serves the status page and /metrics ("" = off).
	StatusListen string
	Secret       string
	Log          *logrus.Logger
	Tick         time.Duration
	// WorkerHeartbeat is the interval workers are told to heartbeat at.
	WorkerHeartbeat time.Duration
	// FS lists DAG inputs (nil: the local file system).
	FS fsys.Lister
	// OutputRoot is where DAGs without an output commit their results.
	OutputRoot string
	// DefaultFS is the cluster's default file system (hdfs://host:port; ""
	// locally): a DAG's hdfs:///path, with no NameNode named, means a path
	// there, as a Hadoop path does (Path.makeQualified). It is made whole
	// when the DAG is accepted, so the AM and every worker read the same.
	DefaultFS string
	// Recovery, when set, keeps a recovery log (recovery.go).
	Recovery *Recovery
	// Committer stages, promotes and aborts DAG outputs (nil: package
	// commit on the local file system).
	Committer OutputCommitter
	// UI configures the status UI (its application header, log links, the
	// proxy guard); the secret is filled in from Secret.
	UI ui.Options
	// History, when set, receives the application's history (an encoded
	// ui.Snapshot) as the AM stops, on the loop goroutine: where it goes
	// (HDFS, a local file) is the caller's business.
	History func(snapshot []byte) error
	// HistoryEvery, when positive, also writes the history this often
	// while the AM runs, so an AM that dies still leaves one.
	HistoryEvery time.Duration
	// DAGHistory, when set, receives each finished DAG's detail once
	// (history.go), and the UI reads compacted DAGs back from it.
	DAGHistory DAGHistory
	// EventLog, when set, records the core's events and actions
	// (ebb.am.event.log.enabled, package eventlog); Run closes it.
	EventLog EventLog
	// CommitRetry, when set, makes each check at submission, promotion
	// and abort of a DAG's output (each may be called again after any
	// failure: package commit)
	// wait out a file system that does not answer, within its bound
	// (hdfsfs.Retry, dfs.client.retry.policy.spec); nil tries once.
	CommitRetry func(what string, f func() error) error
	// ConfirmWithin bounds the wait to confirm, before a promotion, that
	// this AM attempt is still the current one (supersede.go): the RM's
	// yarn.am.liveness-monitor.expiry-interval-ms; 0 is its default.
	ConfirmWithin time.Duration
	// HoldAt is ebb.fault.am.hold.at for this AM attempt (faulthold.go):
	// "" on every attempt but a crash test's first.
	HoldAt string
}

// EventLog is where a recording loop writes (an *eventlog.Writer).
type EventLog interface {
	Recorder
	Close() error
}

// AM is a running ApplicationMaster: the loop around the Core, the gRPC
// services for workers and clients, and the status page.
type AM struct {
	opts       Options
	loop       *Loop
	core       *core.Core
	fs         fsys.Lister
	outputRoot string
	lis        net.Listener
	srv        *grpc.Server
	status     *http.Server
	statusLis  net.Listener
	ui         *ui.UI
	uiOpts     ui.Options
	hist       historyWriter
	records    *dagRecords // finished DAGs' details on their way to DAGHistory
	log        *logrus.Logger

	stopOnce sync.Once
	stopped  chan struct{}
	reason   string

	committer OutputCommitter
	// settling counts outputs being promoted or aborted; Run waits for them.
	settling sync.WaitGroup

	// mu guards the DAGs' ends and outputs below; taken alone.
	mu      lockorder.Mutex
	waiters map[string][]chan core.DAGStatus
	// ended: the settled statuses of the latest finished DAGs (endedOrder,
	// oldest first, at most endedKeep); older ones are answered by the
	// core, which DAGSettled told of them.
	ended      map[string]core.DAGStatus
	endedOrder []string
	endedKeep  int
	// outputPlans: DAGs whose output is not settled yet, by DAG id;
	// outputUsers: the DAG writing each output (by outputKey).
	outputPlans map[string]outputPlan
	outputUsers map[string]string
}

// New builds an AM and binds its listeners; Run starts it.
func New(o Options) (*AM, error) {
	if o.Secret == "" {
		return nil, errors.New("am: an application secret is required")
	}
	if o.Log == nil {
		o.Log = logrus.StandardLogger()
	}
	if o.WorkerHeartbeat <= 0 {
		o.WorkerHeartbeat = time.Second
	}
	if o.FS == nil {
		o.FS = fsys.LocalFS{}
	}
	if o.Committer == nil {
		o.Committer = commit.New(commit.LocalResolver)
	}
	c, err := core.NewCore(o.Core)
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("am: listen on %s: %w", o.Listen, err)
	}
	a := &AM{opts: o, core: c, fs: o.FS, outputRoot: o.OutputRoot, committer: o.Committer, lis: lis, log: o.Log,
		stopped: make(chan struct{}), waiters: map[string][]chan core.DAGStatus{}, ended: map[string]core.DAGStatus{},
		outputPlans: map[string]outputPlan{}, outputUsers: map[string]string{}, endedKeep: o.Core.RetainDAGs}
	a.mu.SetClass("am")
	a.hist.mu.SetClass("am.history")
	lo := LoopOptions{Tick: o.Tick, Log: o.Log, HoldAt: o.HoldAt}
	if o.EventLog != nil {
		lo.Recorder = o.EventLog
	}
	a.loop = NewLoop(c, lo)
	a.loop.OnDAGEnded(a.dagEnded)
	a.uiOpts = uiOptions(o)
	if o.DAGHistory != nil {
		a.loop.endedDetail = true
		a.records = newDAGRecords()
		a.uiOpts.DAGHistory = a.readDAGRecord
	}
	if o.History != nil {
		a.loop.OnStop(a.writeHistory)
	}
	if o.Recovery != nil {
		c.EnableJournal()
		a.loop.journal = a.recordTasks
	}
	auth := secretAuth{secret: []byte(o.Secret)}
	a.srv = grpc.NewServer(grpc.UnaryInterceptor(auth.unary), grpc.StreamInterceptor(auth.stream))
	ebbpb.RegisterWorkerServer(a.srv, &workerService{loop: a.loop, heartbeat: o.WorkerHeartbeat, lostAfter: o.Core.WorkerTimeout})
	ebbpb.RegisterClientServer(a.srv, &clientService{am: a})
	if o.StatusListen != "" {
		sl, err := net.Listen("tcp", o.StatusListen)
		if err != nil {
			_ = lis.Close() // the listen error is the one to report
			return nil, fmt.Errorf("am: status page listen on %s: %w", o.StatusListen, err)
		}
		a.statusLis = sl
		a.status = &http.Server{Handler: a.statusHandler(), ReadHeaderTimeout: 10 * time.Second}
	}
	return a, nil
}

// Addr is the address workers and clients use.
func (a *AM) Addr() string { return a.lis.Addr().String() }

// StatusAddr is the status page's address ("" when off).
func (a *AM) StatusAddr() string {
	if a.statusLis == nil {
		return ""
	}
	return a.statusLis.Addr().String()
}

// SetAllocation tells the Core the cluster's container sizes, for groups
// whose DAG leaves the worker size to ebb; call before Run (the YARN world
// learns them when it registers). It is an event like the others, so a
// recorded run replays with the same sizes.
func (a *AM) SetAllocation(l core.AllocationLimits) { a.loop.Prime(core.AllocationSet{Limits: l}) }

// Loop gives worlds the loop to post to.
func (a *AM) Loop() *Loop { return a.loop }

// SetWorld attaches the world; call before Run.
func (a *AM) SetWorld(w World) { a.loop.SetWorld(w) }

// Stop ends Run.
func (a *AM) Stop(reason string) {
	a.stopOnce.Do(func() {
		a.reason = reason
		close(a.stopped)
	})
}

// Run serves until ctx ends or Stop is called; the world is closed (every
// worker stopped) before it returns.
func (a *AM) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-a.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	serveErr := make(chan error, 2)
	go func() { serveErr <- a.srv.Serve(a.lis) }()
	if a.status != nil {
		go func() {
			if err := a.status.Serve(a.statusLis); !errors.Is(err, http.ErrServerClosed) {
				serveErr <- err
			}
		}()
	}
	loopDone := make(chan error, 1)
	go func() { loopDone <- a.loop.Run(ctx) }()
	if a.opts.History != nil && a.opts.HistoryEvery > 0 {
		go a.checkpointHistory(ctx, a.opts.HistoryEvery)
	}
	recordsDone := make(chan struct{})
	if a.records != nil {
		go func() { defer close(recordsDone); a.writeDAGRecords(ctx) }()
	} else {
		close(recordsDone)
	}
	var err error
	select {
	case err = <-loopDone:
	case err = <-serveErr:
		cancel()
		if lerr := <-loopDone; lerr != nil {
			a.log.Warnf("the event loop ended with %v after the server failed", lerr)
		}
	}
	if a.opts.EventLog != nil {
		if cerr := a.opts.EventLog.Close(); cerr != nil {
			a.log.Warnf("the event log: %v", cerr)
		}
	}
	stopped := make(chan struct{})
	go func() { a.srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		a.srv.Stop()
	}
	if a.status != nil {
		if cerr := a.status.Close(); cerr != nil {
			a.log.Warnf("closing the status page: %v", cerr)
		}
	}
	// A DAG that ended is not over for its client until its output is.
	a.settling.Wait()
	a.abandonOutputs()
	<-recordsDone
	if a.records != nil {
		a.flushDAGRecords() // the DAGs that settled as the AM stopped
	}
	return err
}

// dagEnded hears from the loop that the core ended a DAG. A DAG with an
// output is settled (promoted or aborted) off the loop before its waiters
// are told, so that a client that hears SUCCEEDED finds the results in
// place, and one that hears FAILED or KILLED finds the old output as it was.
func (a *AM) dagEnded(s core.DAGStatus, detail *core.DAGView) {
	a.mu.Lock()
	plan, ok := a.outputPlans[s.ID]
	a.mu.Unlock()
	if !ok {
		a.tellEnded(s, detail)
		return
	}
	a.settling.Add(1)
	go func() {
		defer a.settling.Done()
		s, settled := a.settleUnlessSuperseded(s, plan)
		if !settled {
			return // the next AM attempt settles it; nothing is recorded
		}
		a.mu.Lock()
		delete(a.outputPlans, s.ID)
		delete(a.outputUsers, outputKey(plan.output))
		a.noteEnded(s) // with the plan's removal, so view never sees neither
		a.mu.Unlock()
		a.tellEnded(s, detail)
	}()
}

// tellEnded records a DAG's final status and wakes its waiters. The
// recovery log hears of the end only now, once its output is settled: a
// DAG whose promotion an AM death interrupted is recovered unfinished, and
// settled again by the next attempt.
func (a *AM) tellEnded(s core.DAGStatus, detail *core.DAGView) {
	if a.opts.Recovery != nil {
		a.recordEnded(s)
	}
	if detail != nil {
		// Written once, as its clients are told it ended.
		detail.State, detail.Diagnostics = s.State, s.Diagnostics
		a.records.add(*detail)
	}
	// The core keeps the settled status for when ended has forgotten it.
	a.loop.Send(core.DAGOutputSettled{ID: s.ID, State: s.State, Diagnostics: s.Diagnostics})
	a.mu.Lock()
	a.noteEnded(s)
	ws := a.waiters[s.ID]
	delete(a.waiters, s.ID)
	a.mu.Unlock()
	for _, w := range ws {
		w <- s
	}
}

// noteEnded keeps a settled status, forgetting the oldest beyond
// endedKeep (with a.mu held).
func (a *AM) noteEnded(s core.DAGStatus) {
	if _, ok := a.ended[s.ID]; !ok {
		a.endedOrder = append(a.endedOrder, s.ID)
	}
	a.ended[s.ID] = s
	if len(a.endedOrder) > a.endedKeep+a.endedKeep/2 { // in batches: O(1) a DAG
		drop := len(a.endedOrder) - a.endedKeep
		for _, id := range a.endedOrder[:drop] {
			delete(a.ended, id)
		}
		a.endedOrder = append([]string(nil), a.endedOrder[drop:]...)
	}
}

// WaitDAG blocks until the DAG ends (or ctx does) and returns its status.
func (a *AM) WaitDAG(ctx context.Context, id string) (core.DAGStatus, error) {
	ch := make(chan core.DAGStatus, 1)
	a.mu.Lock()
	if s, ok := a.ended[id]; ok {
		a.mu.Unlock()
		return s, nil
	}
	a.waiters[id] = append(a.waiters[id], ch)
	a.mu.Unlock()
	// A DAG that ended so long ago that ended forgot it (or one that
	// never was) is answered by the core now.
	ans, err := Query(ctx, a.loop, core.DAGQuery{ID: id})
	if err != nil {
		a.dropWaiter(id, ch)
		return core.DAGStatus{}, err
	}
	st := ans.Status
	if !ans.Known {
		a.dropWaiter(id, ch)
		return core.DAGStatus{}, fmt.Errorf("no DAG %q", id)
	}
	if st.State.Done() && !a.settlingOutput(id) {
		a.mu.Lock()
		_, told := a.ended[id]
		a.mu.Unlock()
		if !told { // settled and forgotten: tellEnded will not come again
			a.dropWaiter(id, ch)
			return st, nil
		}
	}
	select {
	case s := <-ch:
		return s, nil
	case <-ctx.Done():
		return core.DAGStatus{}, ctx.Err()
	}
}

// Status returns a DAG's status now, as clients see it (see view).
func (a *AM) Status(ctx context.Context, id string) (core.DAGStatus, bool, error) {
	ans, err := Query(ctx, a.loop, core.DAGQuery{ID: id})
	return a.view(ans.Status), ans.Known, err
}

func (a *AM) dropWaiter(id string, ch chan core.DAGStatus) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ws := a.waiters[id]
	for i, w := range ws {
		if w == ch {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(a.waiters, id)
	} else {
		a.waiters[id] = ws
	}
}

// settlingOutput reports whether a DAG's output is still being settled.
func (a *AM) settlingOutput(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.outputPlans[id]
	return ok
}
