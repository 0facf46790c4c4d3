package security

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

// fakeClock's timers fire only when the test says so.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	pending chan timer
}

type timer struct {
	d  time.Duration
	ch chan time.Time
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, pending: make(chan timer, 1)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.pending <- timer{d, ch}
	return ch
}

// fire waits (up to a deadline) for the refresher to start a timer,
// checks its duration, moves the time past it and fires it.
func (c *fakeClock) fire(t *testing.T, want time.Duration) {
	t.Helper()
	select {
	case tm := <-c.pending:
		if tm.d != want {
			t.Fatalf("the refresher waits %v, want %v", tm.d, want)
		}
		c.mu.Lock()
		c.now = c.now.Add(tm.d)
		now := c.now
		c.mu.Unlock()
		tm.ch <- now
	case <-time.After(10 * time.Second):
		t.Fatalf("the refresher started no timer (want one of %v)", want)
	}
}

func hdfsToken(issued, maxDate time.Time) *yarnrpc.Credentials {
	return &yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Token: yarnrpc.Token{Kind: yarnrpc.KindHDFSDelegationToken,
		Identifier: delegationID(issued.UnixMilli(), maxDate.UnixMilli()), Password: []byte("s3cret-password")}}}}
}

// The refresher waits until 75% of the token's life, retries a failing
// login with a doubling backoff (1 s, 2 s, capped at 3 s), installs the
// fresh tokens and then waits for theirs. Fresh tokens are not renewed by
// the RM, so the renew interval (40 s) shortens their life (100 s max).
func TestRefresherRetriesThenInstalls(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	clock := newFakeClock(t0)
	first := hdfsToken(t0, t0.Add(100*time.Second))
	var mu sync.Mutex
	var logs []string
	fails := 3
	var fresh *yarnrpc.Credentials
	installed := make(chan *yarnrpc.Credentials, 1)
	r := &Refresher{
		Obtain: func(context.Context) (*yarnrpc.Credentials, error) {
			mu.Lock()
			defer mu.Unlock()
			if fails > 0 {
				fails--
				return nil, errors.New("KDC unreachable")
			}
			now := clock.Now()
			fresh = hdfsToken(now, now.Add(100*time.Second))
			return fresh, nil
		},
		Install:       func(c *yarnrpc.Credentials) { installed <- c },
		Clock:         clock,
		RenewInterval: 40 * time.Second,
		MinRetry:      time.Second, MaxRetry: 3 * time.Second,
		Log: func(m string) { mu.Lock(); logs = append(logs, m); mu.Unlock() },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, first) }()
	// min(100 s, 40 s) * 0.75 = 30 s after issue.
	clock.fire(t, 30*time.Second)
	clock.fire(t, time.Second)   // after the first failure
	clock.fire(t, 2*time.Second) // the second
	clock.fire(t, 3*time.Second) // the third: 4 s capped at 3 s
	var got *yarnrpc.Credentials
	select {
	case got = <-installed:
	case <-time.After(10 * time.Second):
		t.Fatal("no fresh tokens installed")
	}
	if got != fresh {
		t.Error("installed something other than the fresh tokens")
	}
	// The fresh ones, issued at 36 s, are replaced 30 s later.
	clock.fire(t, 30*time.Second)
	select {
	case <-installed:
	case <-time.After(10 * time.Second):
		t.Fatal("the fresh tokens were not replaced in their turn")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 5 || !strings.Contains(logs[0], "KDC unreachable") || !strings.Contains(logs[0], "retrying in 1s") ||
		!strings.Contains(logs[3], "fresh delegation tokens in use") {
		t.Errorf("logs %q", logs)
	}
	for _, l := range logs {
		if strings.Contains(l, "s3cret-password") {
			t.Errorf("a log line carries the token's password: %q", l)
		}
	}
}

// Tokens without readable dates: nothing to wait for, said at once.
func TestRefresherNothingToRefresh(t *testing.T) {
	r := &Refresher{Clock: newFakeClock(time.Unix(0, 0))}
	err := r.Run(context.Background(), &yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Token: yarnrpc.Token{Identifier: []byte("x")}}}})
	if !errors.Is(err, ErrNothingToRefresh) {
		t.Errorf("Run = %v", err)
	}
}

func TestRefreshByRenewInterval(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	c := hdfsToken(t0, t0.Add(7*24*time.Hour))
	// A day's renew interval: 18 h, not 75% of the week (126 h).
	if at, ok := RefreshBy(c, 24*time.Hour); !ok || at.Sub(t0) != 18*time.Hour {
		t.Errorf("RefreshBy = %v, want 18h after issue", at.Sub(t0))
	}
	if at, ok := RefreshBy(c, 0); !ok || at.Sub(t0) != 126*time.Hour {
		t.Errorf("RefreshBy(0) = %v, want 126h after issue", at.Sub(t0))
	}
	if m, ok := MaxDate(c); !ok || !m.Equal(t0.Add(7*24*time.Hour)) {
		t.Errorf("MaxDate = %v", m)
	}
}
