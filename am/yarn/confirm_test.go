package yarn

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
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

// An attempt whose AMRMToken the RM refuses (the RM unregistered it when
// it expired it) is superseded too; closing a superseded world stops and
// releases no container: the next attempt takes them over.
func TestSupersededWorldLeavesItsContainers(t *testing.T) {
	h := newHarness(t)
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 2})
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 1, NMTokens: []NMToken{tok("n1:1")}, Allocated: []Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n1:1")}}},
		{err: &yarnrpc.RemoteError{Class: "org.apache.hadoop.security.token.SecretManager$InvalidToken",
			Message: "appattempt_1_0001_000001 not found in AMRMTokenSecretManager."}},
	}
	h.beat(t)
	if err := h.w.beat(context.Background()); err == nil {
		t.Fatal("the refused allocate returned nil")
	}
	if why := h.w.Superseded(); !strings.Contains(why, "refuses this attempt's token") {
		t.Fatalf("Superseded = %q, want the refused token", why)
	}
	requests := len(h.rm.requests)
	if err := h.w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(h.nm.stopped) != 0 || len(h.rm.requests) != requests {
		t.Errorf("closing a superseded world stopped %v and sent %d allocates, want none", h.nm.stopped, len(h.rm.requests)-requests)
	}
}
