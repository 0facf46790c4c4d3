package am

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// apply feeds one event to the Core and carries out what it caused: the
// world's part of the event first (what only the world knows, or must do
// before the Core hears of it), then the Core, then the actions. The
// events those actions fed back wait for a later round of Run.
func (l *Loop) apply(now time.Time, ev core.Event, adm *admission) core.Reply {
	ev, refused := l.before(now, ev, adm)
	if refused != nil {
		return core.Reply{Err: refused}
	}
	l.record(now, ev)
	r := l.core.Apply(now, ev)
	l.after(now, ev, adm, &r)
	l.dispatch(now)
	return r
}

// before completes an event with what the loop's side knows (the node's
// memory as the world sees it, a submission's default output) and tells a
// world that watches for them of its workers' exits, before the Core
// hears of them.
func (l *Loop) before(now time.Time, ev core.Event, adm *admission) (core.Event, error) {
	l.holdReported(ev)
	switch e := ev.(type) {
	case core.WorkerRegistered:
		if l.world != nil {
			e.Info.NodeMB = l.world.NodeMB(e.Info.Node)
		}
		return e, nil
	case core.DAGArrived:
		if adm != nil {
			if err := adm.admit(now, l.core.NextDAGID(), &e.Submission); err != nil {
				return nil, err
			}
		}
		return e, nil
	case core.WorkerGone:
		if l.isAMProc(e.Worker) {
			// No world holds it: only the loop's record of it goes.
			if e.Exited {
				delete(l.amProcs, e.Worker)
			}
			return ev, nil
		}
		if x, ok := l.world.(ExitWatcher); ok && e.Exited {
			x.WorkerExited(now, e.Worker)
		}
	}
	return ev, nil
}

// after tells the world of a worker of an earlier attempt that joined,
// and the AM of a DAG the Core accepted.
func (l *Loop) after(now time.Time, ev core.Event, adm *admission, r *core.Reply) {
	if r.Err != nil {
		return
	}
	switch e := ev.(type) {
	case core.WorkerRegistered:
		if j, ok := l.world.(WorkerJoiner); ok && e.Info.Reconnected {
			j.WorkerJoined(now, e.Info.ID, e.Info.Group)
		}
	case core.DAGArrived:
		if adm != nil {
			r.Err = adm.accepted(now, r.DAGID, e.Submission)
		}
	}
}

func (l *Loop) record(now time.Time, ev core.Event) {
	if l.rec != nil {
		l.rec.Event(now, ev)
	}
}

// feedBack queues an event an action caused, for a later round of Run:
// never in the middle of a Drain, and taking its turn with the queued
// events, so a cycle (an attempt sent to a worker whose connection is
// gone, re-queued, sent again) lasts only until the worker's loss, queued
// behind it, comes in.
func (l *Loop) feedBack(ev core.Event) { l.fedBack = append(l.fedBack, ev) }

// dispatch carries out the Core's actions (executor.go), and hands the
// tasks that succeeded to the journal: those of the event first, then
// those the actions caused, so they precede the end of their DAG.
func (l *Loop) dispatch(now time.Time) {
	l.takeJournal()
	if l.core.Pending() {
		if l.rec != nil {
			l.rec.Drain(now)
		}
		l.core.Drain(now, executor{l})
	}
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
	// for it; a worker too far behind to take the message is cut off. A
	// superseded attempt's workers are not told to stop: their streams
	// just end, and they rejoin the next attempt (supersede.go).
	superseded := l.supersededBy() != ""
	for _, c := range conns {
		if superseded {
			c.close()
			continue
		}
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
	l.stopAMProcs()
	if l.world != nil {
		if err := l.world.Close(); err != nil {
			l.log.Warnf("closing the world: %v", err)
		}
	}
}
