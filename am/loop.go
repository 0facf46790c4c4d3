package am

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/internal/lockorder"
)

// Loop owns the Core: it is the only reader of the clock, feeds the Core
// events one at a time on its own goroutine, and carries out the actions
// the Core returns, in the World and on worker connections.
type Loop struct {
	core   *core.Core
	world  World
	log    *logrus.Logger
	clock  func() time.Time
	tick   time.Duration
	events chan func(now time.Time)
	done   chan struct{}
	// journal, when set, hears of the tasks that succeeded (for the
	// recovery log), on the loop goroutine.
	journal func([]core.TaskDone)

	// mu guards conns and watchers (touched by gRPC goroutines). It is
	// taken alone, and nothing that can block is called under it (the AM's
	// locks, like the worker's, are never nested: the lockorder tests hold it).
	mu      lockorder.Mutex
	conns   map[string]*workerConn
	ended   []func(core.DAGStatus)
	onStop  []func(*core.Core, time.Time)
	stopped bool
	// creds are the workers' current delegation tokens (SetWorkerCredentials);
	// nil until the AM refreshes them.
	creds []byte
}

// LoopOptions configures a Loop.
type LoopOptions struct {
	Tick  time.Duration    // how often the Core and the World see time pass
	Clock func() time.Time // nil: time.Now
	Log   *logrus.Logger
}

// NewLoop wraps a Core. SetWorld must be called before Run.
func NewLoop(core *core.Core, o LoopOptions) *Loop {
	if o.Tick <= 0 {
		o.Tick = 250 * time.Millisecond
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Log == nil {
		o.Log = logrus.StandardLogger()
	}
	l := &Loop{core: core, log: o.Log, clock: o.Clock, tick: o.Tick,
		events: make(chan func(time.Time), 1024), done: make(chan struct{}), conns: map[string]*workerConn{}}
	l.mu.SetClass("am.loop")
	return l
}

// SetWorld attaches the world (which usually needs the loop's Post first).
func (l *Loop) SetWorld(w World) { l.world = w }

// Post queues f to run on the loop's goroutine. It never blocks the
// caller for long: events are buffered.
func (l *Loop) Post(f func(c *core.Core, now time.Time)) {
	select {
	case l.events <- func(now time.Time) { f(l.core, now) }:
	case <-l.done:
	}
}

// Do runs f on the loop's goroutine and waits for it.
func (l *Loop) Do(ctx context.Context, f func(c *core.Core, now time.Time)) error {
	ran := make(chan struct{})
	select {
	case l.events <- func(now time.Time) { f(l.core, now); close(ran) }:
	case <-l.done:
		return context.Canceled
	case <-ctx.Done():
		return ctx.Err()
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

// OnDAGEnded registers f to be called (on the loop goroutine) for every
// DAG that ends.
func (l *Loop) OnDAGEnded(f func(core.DAGStatus)) {
	l.mu.Lock()
	l.ended = append(l.ended, f)
	l.mu.Unlock()
}

// OnStop registers f to be called on the loop goroutine when Run ends,
// before the world is closed: the last look at the Core (the history).
func (l *Loop) OnStop(f func(c *core.Core, now time.Time)) {
	l.mu.Lock()
	l.onStop = append(l.onStop, f)
	l.mu.Unlock()
}

// Run drives the Core until ctx ends, then closes the world.
func (l *Loop) Run(ctx context.Context) error {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	defer close(l.done)
	for {
		select {
		case f := <-l.events:
			f(l.clock())
		case <-t.C:
			now := l.clock()
			l.core.Tick(now)
			l.world.Tick(now)
		case <-ctx.Done():
			l.mu.Lock()
			hooks := l.onStop
			l.mu.Unlock()
			for _, f := range hooks {
				f(l.core, l.clock())
			}
			l.shutdown()
			return nil
		}
		l.dispatch()
	}
}

// dispatch carries out the Core's actions (executor.go), and hands the
// tasks that succeeded to the journal: those of the event first, then
// those the actions caused, so they precede the end of their DAG.
func (l *Loop) dispatch() {
	l.takeJournal()
	l.core.Drain(l.clock(), executor{l})
	l.takeJournal()
}

func (l *Loop) takeJournal() {
	if l.journal == nil {
		return
	}
	if j := l.core.TakeJournal(); len(j) > 0 {
		l.journal(j)
	}
}

func (l *Loop) shutdown() {
	l.mu.Lock()
	l.stopped = true
	conns := l.conns
	l.conns = map[string]*workerConn{}
	l.mu.Unlock()
	// Each worker is told why its stream ends, after what is already queued
	// for it; a worker too far behind to take the message is cut off.
	for _, c := range conns {
		select {
		case c.out <- stopMessage(false, "the AM is shutting down"):
		default:
		}
		select {
		case c.out <- nil:
		default:
			c.close()
		}
	}
	if l.world != nil {
		if err := l.world.Close(); err != nil {
			l.log.Warnf("closing the world: %v", err)
		}
	}
}
