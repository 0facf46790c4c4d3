package yarn

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

// ConfirmCurrent waits for an allocate sent after the ask (a nudge sends
// it, the interval is an hour): one that succeeds confirms the attempt;
// ApplicationAttemptNotFound (the RM expired the attempt and started the
// next) is a SupersededError, and stays so; an RM that answers nothing
// useful within the bound is an error naming it.
func TestConfirmCurrent(t *testing.T) {
	t.Run("confirmed", func(t *testing.T) {
		h := newHarness(t)
		h.w.o.Heartbeat = time.Hour
		h.w.o.OnShutdown = func(string) {}
		h.beat(t) // an allocate before the ask does not count
		h.w.Start()
		defer func() { _ = h.w.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.w.ConfirmCurrent(ctx); err != nil {
			t.Fatalf("ConfirmCurrent = %v, want nil", err)
		}
		if h.w.Superseded() != "" {
			t.Errorf("Superseded = %q", h.w.Superseded())
		}
	})
	t.Run("superseded", func(t *testing.T) {
		h := newHarness(t)
		h.w.o.Heartbeat = time.Hour
		h.w.o.OnShutdown = func(string) {}
		h.rm.script = []fakeAnswer{{err: &yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException"}}}
		h.w.Start()
		defer func() { _ = h.w.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := h.w.ConfirmCurrent(ctx)
		var se *SupersededError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "no longer knows this attempt") {
			t.Fatalf("ConfirmCurrent = %v, want a SupersededError", err)
		}
		if err := h.w.ConfirmCurrent(ctx); !errors.As(err, &se) || h.w.Superseded() == "" {
			t.Fatalf("asked again: %v (Superseded %q), want superseded still", err, h.w.Superseded())
		}
	})
	t.Run("unconfirmed within the bound", func(t *testing.T) {
		h := newHarness(t)
		h.w.o.Heartbeat = 20 * time.Millisecond
		h.w.o.OnShutdown = func(string) {}
		down := errors.New("connection refused")
		for range 1000 {
			h.rm.script = append(h.rm.script, fakeAnswer{err: down})
		}
		h.w.Start()
		defer func() { _ = h.w.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		err := h.w.ConfirmCurrent(ctx)
		if err == nil || !strings.Contains(err.Error(), "no allocate succeeded within the bound") || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ConfirmCurrent = %v, want the bound's error", err)
		}
	})
}
