package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Rejoining: when the AM's process dies, YARN may keep the workers'
// containers for the next AM attempt (keep_containers_across_application
// _attempts). Such a worker keeps running its attempts and serving its
// outputs, reads the new attempt's address from Options.AMFile (the AM
// publishes it in the application's staging directory), and registers
// again with the same id and secret, saying what it runs and serves.

// final is an ended attempt's last update, kept for a new AM attempt.
type final struct {
	held   *ebbpb.HeldAttempt
	update *ebbpb.AttemptUpdate
}

func heldOf(a *attempt) *ebbpb.HeldAttempt {
	r := a.req
	return &ebbpb.HeldAttempt{AttemptId: r.GetAttemptId(), DagId: r.GetDagId(), Vertex: r.GetVertex(), TaskIndex: r.GetTaskIndex(),
		StartedUnixMs: a.accepted.UnixMilli()}
}

// sender is the current session's sender.
func (w *worker) sender() *sender {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out
}

// heldAttempts lists the attempts running and those that ended since
// their DAG began. w.mu held.
func (w *worker) heldAttempts() []*ebbpb.HeldAttempt {
	var out []*ebbpb.HeldAttempt
	for _, a := range w.running {
		out = append(out, heldOf(a))
	}
	for _, f := range w.finals {
		out = append(out, f.held)
	}
	return out
}

// resendFinals tells a new AM attempt how the attempts it adopted ended.
func (w *worker) resendFinals() {
	w.mu.Lock()
	out := w.out
	us := make([]*ebbpb.AttemptUpdate, 0, len(w.finals))
	for _, f := range w.finals {
		us = append(us, f.update)
	}
	w.mu.Unlock()
	for _, u := range us {
		out.send(attemptUpdate(u))
	}
}

// resendRunning tells a new AM attempt where the attempts it adopted
// stand, which it cannot know (it adopts them at progress 0, and the
// worker reports progress only when it changes): each one's last
// progress, and for one granted its commit, its ask again. Without them
// the new attempt sees a rate of 0 and may start a backup of an attempt
// that is nearly done, or of one committing, whose backup would then be
// granted and commit the task a second time.
func (w *worker) resendRunning() {
	w.mu.Lock()
	out := w.out
	as := make([]*attempt, 0, len(w.running))
	for _, a := range w.running {
		as = append(as, a)
	}
	w.mu.Unlock()
	for _, a := range as {
		a.resendState(out)
	}
}

// mayReconnect: the session ended because the AM went away (not because
// it told this worker to stop, or the worker itself is stopping), and
// the worker knows where a new AM attempt would publish its address.
func (w *worker) mayReconnect(err error, reconnecting bool) bool {
	if w.o.AMFile == "" {
		return false
	}
	w.mu.Lock()
	stopping, fenced := w.stopping, w.fenced != nil
	w.mu.Unlock()
	if stopping || fenced {
		return false
	}
	var re *RegisterError
	return errors.Is(err, ErrStreamBroken) || reconnecting && errors.As(err, &re)
}

// awaitAM polls the AM file until it names an address other than the one
// that went away, within Options.RejoinWithin.
func (w *worker) awaitAM(ctx context.Context, gone string) (string, error) {
	deadline := time.Now().Add(w.o.RejoinWithin)
	var last error
	for {
		addr, err := w.readAMFile()
		if err == nil && addr != "" && addr != gone {
			w.log.WithField("am", addr).Info("a new AM attempt is up; rejoining")
			return addr, nil
		}
		last = err
		if time.Now().After(deadline) {
			return "", fmt.Errorf("none published in %s within %s (last read: %v)", w.o.AMFile, w.o.RejoinWithin, last)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (w *worker) readAMFile() (string, error) {
	fs, p, err := w.fss.resolve(w.o.AMFile)
	if err != nil {
		return "", err
	}
	f, err := fs.Open(p)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read-only
	b, err := io.ReadAll(io.LimitReader(f, 1024))
	return strings.TrimSpace(string(b)), err
}
