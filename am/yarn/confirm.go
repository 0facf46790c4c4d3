package yarn

import (
	"context"
	"fmt"
	"time"
)

// Confirming the attempt: the RM expires an AM attempt it has not heard
// from for yarn.am.liveness-monitor.expiry-interval-ms and starts the
// next one, which recovers the DAGs and promotes their outputs. An
// attempt that was stopped (SIGSTOP, a frozen VM) past that bound and
// woke up must not promote an output too, nor remove a staged one the
// next attempt needs. So before it promotes, the AM asks the world to
// confirm that it is still the application's current attempt: an
// allocate sent after the ask must succeed. The RM answers an expired
// attempt's allocate with ApplicationAttemptNotFound (yarnrpc.
// ErrAttemptNotFound), and the attempt is superseded from then on.

// confirmState is the heartbeat's record for ConfirmCurrent, under w.mu.
type confirmState struct {
	okSent time.Time     // when the latest allocate that succeeded was sent
	gone   string        // why this attempt is superseded; "" while it is not
	beaten chan struct{} // closed after every allocate round, then replaced
}

// SupersededError: the RM no longer knows this AM attempt.
type SupersededError struct{ Reason string }

func (e *SupersededError) Error() string {
	return fmt.Sprintf("this AM attempt is superseded: %s", e.Reason)
}

// noteBeat records the end of an allocate round sent at sent: ok when it
// succeeded, gone when the RM no longer knows the attempt.
func (w *World) noteBeat(sent time.Time, ok bool, gone string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok && sent.After(w.conf.okSent) {
		w.conf.okSent = sent
	}
	if gone != "" && w.conf.gone == "" {
		w.conf.gone = gone
	}
	if w.conf.beaten != nil {
		close(w.conf.beaten)
		w.conf.beaten = nil
	}
}

// ConfirmCurrent returns nil once an allocate sent after the call has
// succeeded: at that moment the RM held this attempt current. It returns
// a SupersededError when the RM no longer knows the attempt, and ctx's
// error when neither happened in time (the caller's bound).
func (w *World) ConfirmCurrent(ctx context.Context) error {
	asked := time.Now()
	for {
		w.mu.Lock()
		gone, ok := w.conf.gone, !w.conf.okSent.Before(asked)
		if w.conf.beaten == nil {
			w.conf.beaten = make(chan struct{})
		}
		beaten := w.conf.beaten
		w.mu.Unlock()
		if gone != "" {
			return &SupersededError{Reason: gone}
		}
		if ok {
			return nil
		}
		select {
		case w.nudge <- struct{}{}:
		default:
		}
		select {
		case <-beaten:
		case <-ctx.Done():
			return fmt.Errorf("no allocate succeeded within the bound: %w", context.Cause(ctx))
		}
	}
}

// Superseded says why this attempt is no longer the application's
// current one ("" while it is).
func (w *World) Superseded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.conf.gone
}
