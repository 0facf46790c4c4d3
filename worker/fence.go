package worker

import (
	"fmt"
	"sync"
	"time"
)

// Fencing: the AM declares a worker lost when it has heard nothing from
// it for mr3.heartbeat.container.timeout.ms (it tells the worker that
// bound in Registered) and runs its attempts again elsewhere. A worker
// that was stopped (SIGSTOP, a frozen VM, a starved machine) for as long
// wakes up holding attempts the AM has given to others: if it committed
// their files now, the output would hold two attempts' results of one
// task. So the worker keeps the mirror of the AM's rule: once it has been
// unable to heartbeat for the AM's whole timeout it takes itself as lost,
// for good. It commits nothing more, sends nothing more, kills its
// attempts and exits. The AM refuses whatever it still hears from a
// worker it lost (am/core), so the two sides agree without a round trip.
//
// What this does not see is a network cut while the worker runs: then
// the AM closes the stream when it loses the worker, and the worker's
// broken stream ends it.

// FencedError is Run's error, and a killed attempt's cause, when the
// worker fenced itself off.
type FencedError struct {
	// Silent is how long the worker could not heartbeat; LostAfter the
	// AM's bound.
	Silent, LostAfter time.Duration
}

func (e *FencedError) Error() string {
	return fmt.Sprintf("fenced: this worker could not heartbeat for %s, past the AM's %s (mr3.heartbeat.container.timeout.ms): "+
		"the AM has declared it lost and given its attempts to others, so it commits nothing and exits",
		e.Silent.Round(time.Millisecond), e.LostAfter)
}

// lease is the worker's own view of whether the AM may still count on it.
// It is renewed at every heartbeat; a gap of lostAfter between two
// renewals, or between the last renewal and a check, breaks it for good.
type lease struct {
	mu        sync.Mutex
	lostAfter time.Duration // 0: the AM did not say; never broken
	last      time.Time
	broken    *FencedError
}

// start begins the lease at registration.
func (l *lease) start(now time.Time, lostAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lostAfter, l.last = lostAfter, now
}

// renew records a heartbeat at now, unless the gap since the last one
// already broke the lease (then the error).
func (l *lease) renew(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkLocked(now); err != nil {
		return err
	}
	l.last = now
	return nil
}

// check says whether the worker may still act for the AM at now (commit
// a file, send an update).
func (l *lease) check(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkLocked(now)
}

func (l *lease) checkLocked(now time.Time) error {
	if l.broken != nil {
		return l.broken
	}
	if l.lostAfter <= 0 || l.last.IsZero() {
		return nil
	}
	if gap := now.Sub(l.last); gap >= l.lostAfter {
		l.broken = &FencedError{Silent: gap, LostAfter: l.lostAfter}
		return l.broken
	}
	return nil
}

// suspend ends the lease with the session's AM (its stream broke: a new
// AM attempt, if any, starts a new one), after a last check: a worker
// that wakes to a broken stream was still cut off.
func (l *lease) suspend(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkLocked(now); err != nil {
		return err
	}
	l.lostAfter = 0
	return nil
}

// mayAct is the lease's check at the time of the call, fencing the worker
// off when it is broken: what an attempt asks before it commits a file.
func (w *worker) mayAct() error {
	if err := w.lease.check(time.Now()); err != nil {
		w.fenceOff(err)
		return err
	}
	return nil
}

// fenceOff takes the worker out for good: nothing more is sent, every
// attempt is killed (none commits), and the session ends, so Run returns
// the FencedError and the process exits.
func (w *worker) fenceOff(err error) {
	w.mu.Lock()
	first := w.fenced == nil
	if first {
		w.fenced = err
	}
	out, end := w.out, w.endSession
	w.mu.Unlock()
	if !first {
		return
	}
	w.log.Error(err.Error())
	if out != nil {
		out.stop()
	}
	w.killAll(err)
	if end != nil {
		end()
	}
}

// fencedErr is the error the worker fenced itself off with, nil if none.
func (w *worker) fencedErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fenced
}
