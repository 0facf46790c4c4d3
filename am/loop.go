package am

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/internal/lockorder"
)

// Loop owns the Core: it is the only reader of the clock, feeds the Core
// events (core.Event values) one at a time on its own goroutine, answers
// read-only queries with copies, and carries out the actions the Core
// returns, in the World and on worker connections. Nothing outside the
// loop holds the Core.
type Loop struct {
	core   *core.Core
	world  World
	log    *logrus.Logger
	clock  func() time.Time
	tick   time.Duration
	events chan item
	done   chan struct{}
	// journal, when set, hears of the tasks that succeeded (for the
	// recovery log), on the loop goroutine.
	journal func([]core.TaskDone)
	// rec, when set, records every event, drain and action (the event
	// log, for `ebb replay`).
	rec Recorder
	// fedBack are the events carrying out actions caused (an attempt that
	// could not be delivered): each applied by a later round of Run.
	fedBack []core.Event
	// endedDetail: OnDAGEnded's hooks want each DAG's detail.
	endedDetail bool
	// amProcs are the in-AM workers this loop started (amworker.go),
	// touched on the loop goroutine only.
	amProcs map[string]*amProc
	// fault is the crash tests' hold point (faulthold.go); nil = none.
	fault *faultHold
	// superseded says why the AM found its attempt replaced by the next
	// (supersede.go); nil while it has not.
	superseded atomic.Pointer[string]

	// mu guards conns and watchers (touched by gRPC goroutines). It is
	// taken alone, and nothing that can block is called under it (the AM's
	// locks, like the worker's, are never nested: the lockorder tests hold it).
	mu      lockorder.Mutex
	conns   map[string]*workerConn
	ended   []func(core.DAGStatus, *core.DAGView)
	onStop  []func(now time.Time, v ui.View)
	stopped bool
	// creds are the workers' current delegation tokens (SetWorkerCredentials);
	// nil until the AM refreshes them.
	creds []byte
}

// item is one thing queued for the loop: an event (with, for Ask, where
// its reply goes), or a read.
type item struct {
	ev    core.Event
	reply chan core.Reply
	adm   *admission
	read  func()
}

// admission is the AM's part of accepting a DAG, done on the loop around
// the Core's: admit completes or refuses the submission knowing the id it
// will get; accepted hears the Core took it. Neither sees the Core.
type admission struct {
	admit    func(now time.Time, nextID string, s *core.Submission) error
	accepted func(now time.Time, id string, s core.Submission) error
}

// Recorder hears the loop's inputs and outputs in order: each event as
// the Core gets it, each Drain and each action it hands out (the event
// log, am/eventlog).
type Recorder interface {
	Event(now time.Time, ev core.Event)
	Drain(now time.Time)
	Action(now time.Time, a core.Action)
}

// LoopOptions configures a Loop.
type LoopOptions struct {
	Tick  time.Duration    // how often the Core and the World see time pass
	Clock func() time.Time // nil: time.Now
	Log   *logrus.Logger
	// Recorder, when set, records the loop's events and actions.
	Recorder Recorder
	// HoldAt is ebb.fault.am.hold.at for this AM attempt ("" or "none" =
	// no hold; faulthold.go).
	HoldAt string
}

// NewLoop wraps a Core. SetWorld must be called before Run.
func NewLoop(c *core.Core, o LoopOptions) *Loop {
	if o.Tick <= 0 {
		o.Tick = 250 * time.Millisecond
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Log == nil {
		o.Log = logrus.StandardLogger()
	}
	l := &Loop{core: c, log: o.Log, clock: o.Clock, tick: o.Tick, rec: o.Recorder,
		events: make(chan item, 1024), done: make(chan struct{}), conns: map[string]*workerConn{}}
	if l.rec != nil {
		// A recorded run replays on wall-clock times alone: the loop's
		// times carry no monotonic reading, so the Core's arithmetic on
		// them is the replay's.
		clock := o.Clock
		l.clock = func() time.Time { return clock().Round(0) }
	}
	if o.HoldAt != "" && o.HoldAt != "none" {
		l.fault = newFaultHold(o.HoldAt)
	}
	l.mu.SetClass("am.loop")
	return l
}

// SetWorld attaches the world (which usually needs the loop to send to).
func (l *Loop) SetWorld(w World) { l.world = w }

// Send queues an event for the Core. It never blocks the caller for long:
// events are buffered.
func (l *Loop) Send(ev core.Event) {
	select {
	case l.events <- item{ev: ev}:
	case <-l.done:
	}
}

// Ask queues an event and waits for the Core's reply.
func (l *Loop) Ask(ctx context.Context, ev core.Event) (core.Reply, error) {
	return l.ask(ctx, item{ev: ev})
}

func (l *Loop) ask(ctx context.Context, it item) (core.Reply, error) {
	it.reply = make(chan core.Reply, 1)
	if err := l.enqueue(ctx, it); err != nil {
		return core.Reply{}, err
	}
	select {
	case r := <-it.reply:
		return r, nil
	case <-l.done:
		return core.Reply{}, context.Canceled
	case <-ctx.Done():
		return core.Reply{}, ctx.Err()
	}
}

// Query answers a read-only question on the loop, with a copy.
func Query[R any](ctx context.Context, l *Loop, q core.Query[R]) (R, error) {
	var r R
	err := l.read(ctx, func() { r = core.Answer(l.core, q) })
	return r, err
}

// View runs f with a read-only view of the Core on the loop's goroutine,
// so a page is one consistent snapshot (the UI's Source). f must not keep
// v: it reads copies out of it.
func (l *Loop) View(ctx context.Context, f func(v ui.View)) error {
	return l.read(ctx, func() { f(l.core) })
}

func (l *Loop) read(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	if err := l.enqueue(ctx, item{read: func() { f(); close(ran) }}); err != nil {
		return err
	}
	select {
	case <-ran:
		return nil
	case <-l.done:
		return context.Canceled
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Loop) enqueue(ctx context.Context, it item) error {
	select {
	case l.events <- it:
		return nil
	case <-l.done:
		return context.Canceled
	case <-ctx.Done():
		return ctx.Err()
	}
}

// OnDAGEnded registers f to be called (on the loop goroutine) for every
// DAG that ends, with its detail as it ends when the loop's endedDetail
// is set (nil otherwise).
func (l *Loop) OnDAGEnded(f func(s core.DAGStatus, detail *core.DAGView)) {
	l.mu.Lock()
	l.ended = append(l.ended, f)
	l.mu.Unlock()
}

// OnStop registers f to be called on the loop goroutine when Run ends,
// before the world is closed: the last look at the Core (the history).
func (l *Loop) OnStop(f func(now time.Time, v ui.View)) {
	l.mu.Lock()
	l.onStop = append(l.onStop, f)
	l.mu.Unlock()
}

// Prime applies an event before Run starts (the recovered DAGs), on the
// caller's goroutine; the actions it causes wait for the loop's first
// drain. Calling it once Run has started is a race.
func (l *Loop) Prime(ev core.Event) core.Reply {
	now := l.clock()
	l.record(now, ev)
	return l.core.Apply(now, ev)
}

// PrimeQuery answers a query before Run starts, on the caller's goroutine
// (as Prime).
func PrimeQuery[R any](l *Loop, q core.Query[R]) R { return core.Answer(l.core, q) }

// Run drives the Core until ctx ends, then closes the world.
func (l *Loop) Run(ctx context.Context) error {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	defer close(l.done)
	for {
		var fedBack <-chan struct{} // ready when events were fed back
		if len(l.fedBack) > 0 {
			fedBack = ready
		}
		select {
		case <-fedBack:
			ev := l.fedBack[0]
			l.fedBack = l.fedBack[1:]
			l.apply(l.clock(), ev, nil)
		case it := <-l.events:
			l.handle(it)
		case <-t.C:
			now := l.clock()
			l.apply(now, core.Tick{}, nil)
			l.world.Tick(now, l.core.Summary())
			if wv, ok := l.world.(WorkerViewer); ok {
				wv.WorkersViewed(now, l.core.Workers())
			}
		case <-ctx.Done():
			l.mu.Lock()
			hooks := l.onStop
			l.mu.Unlock()
			for _, f := range hooks {
				f(l.clock(), l.core)
			}
			l.shutdown()
			return nil
		}
	}
}

// ready is a channel that is always ready (closed).
var ready = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (l *Loop) handle(it item) {
	if it.read != nil {
		it.read()
		return
	}
	r := l.apply(l.clock(), it.ev, it.adm)
	switch {
	case it.reply != nil:
		it.reply <- r
	case r.Err != nil: // sent, so nobody waits for the reply
		l.log.Warnf("%T: %v", it.ev, r.Err)
	}
}
