package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Rejoining: when the AM's process dies, YARN may keep the workers'
// containers for the next AM attempt (keep_containers_across_application
// _attempts). Such a worker keeps running its attempts and serving its
// outputs, reads the new attempt's address from Options.AMFile (the AM
// publishes it in the application's staging directory), and registers
// again with the same id and secret, saying what it runs and serves. On
// Kubernetes the AM's container restarts in its pod, at the same IP and
// port: a worker there rejoins in place (Options.RejoinInPlace), dialling
// the address it had until the AM answers.

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
// the worker knows where a new AM attempt would be: the AM file names it,
// or it comes back in place. In place, an AM that answered and refused
// the worker is one that declared it lost (or does not know its group):
// waiting longer would not change its mind.
func (w *worker) mayReconnect(err error, reconnecting bool) bool {
	if w.o.AMFile == "" && !w.o.RejoinInPlace {
		return false
	}
	w.mu.Lock()
	stopping, fenced := w.stopping, w.fenced != nil
	w.mu.Unlock()
	if stopping || fenced {
		return false
	}
	var re *RegisterError
	if !reconnecting || !errors.As(err, &re) {
		return errors.Is(err, ErrStreamBroken)
	}
	return w.o.AMFile != "" || !refused(err)
}

// refused: the AM answered a registration and said no (not: nobody
// listens yet, or no answer in time).
func refused(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.FailedPrecondition, codes.Unauthenticated, codes.PermissionDenied, codes.InvalidArgument:
		return true
	}
	return false
}

// awaitAM is the address of the AM attempt to rejoin: in place, the one
// that went away, after a pause, while RejoinWithin has not passed since
// it went (gone at since); else the AM file's.
func (w *worker) awaitAM(ctx context.Context, gone string, since time.Time) (string, error) {
	if w.o.AMFile == "" {
		if time.Since(since) > w.o.RejoinWithin {
			return "", fmt.Errorf("it did not come back at %s within %s", gone, w.o.RejoinWithin)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(rejoinPoll):
			return gone, nil
		}
	}
	return w.awaitAMFile(ctx, gone)
}

// rejoinPoll is how often a worker looks for a new AM attempt: a failed
// dial or a read of a small file costs little, and an AM back sooner
// hears its workers sooner.
const rejoinPoll = 250 * time.Millisecond

// awaitAMFile polls the AM file until it names an address other than the
// one that went away, within Options.RejoinWithin.
func (w *worker) awaitAMFile(ctx context.Context, gone string) (string, error) {
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
		case <-time.After(rejoinPoll):
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
