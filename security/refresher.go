package security

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

// Clock is the time a Refresher waits on: the wall clock in the AM, a
// fake one in tests.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// WallClock is the real time.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// After is time.After.
func (WallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Refresher replaces an application's delegation tokens before they die:
// at RefreshBy of the current ones it obtains fresh ones (a keytab login
// in the AM) and installs them; a failure is logged with its reason and
// retried with a doubling backoff until it succeeds or ctx ends. It never
// logs the tokens: only times and errors.
type Refresher struct {
	// Obtain gets fresh tokens; it bounds its own network calls.
	Obtain func(ctx context.Context) (*yarnrpc.Credentials, error)
	// Install hands fresh tokens to their users (the AM's HDFS, its
	// workers, the launch context of new workers).
	Install func(creds *yarnrpc.Credentials)
	Clock   Clock
	// RenewInterval is dfs.namenode.delegation.token.renew-interval (see
	// RefreshBy); 0 means the tokens are renewed up to their maximum date.
	RenewInterval time.Duration
	// MinRetry and MaxRetry bound the backoff between failed attempts.
	MinRetry, MaxRetry time.Duration
	// Log hears what happens (fresh tokens, failures); nil is silent.
	Log func(msg string)
}

// ErrNothingToRefresh: the tokens carry no readable dates, so there is no
// time to replace them by.
var ErrNothingToRefresh = errors.New("security: no delegation token with readable dates to refresh")

// Run refreshes current and its successors until ctx ends (it returns
// ctx's error) or there is nothing to refresh.
func (r *Refresher) Run(ctx context.Context, current *yarnrpc.Credentials) error {
	for {
		at, ok := RefreshBy(current, r.RenewInterval)
		if !ok {
			return ErrNothingToRefresh
		}
		if err := r.sleepUntil(ctx, at); err != nil {
			return err
		}
		fresh, err := r.obtain(ctx, current)
		if err != nil {
			return err
		}
		r.Install(fresh)
		if next, ok := RefreshBy(fresh, r.RenewInterval); ok {
			r.log(fmt.Sprintf("fresh delegation tokens in use (%d tokens); the next refresh is due at %s",
				len(fresh.Tokens), next.UTC().Format(time.RFC3339)))
		}
		current = fresh
	}
}

// obtain tries until it gets fresh tokens or ctx ends.
func (r *Refresher) obtain(ctx context.Context, current *yarnrpc.Credentials) (*yarnrpc.Credentials, error) {
	wait := r.MinRetry
	for {
		fresh, err := r.Obtain(ctx)
		if err == nil {
			return fresh, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.log(fmt.Sprintf("could not obtain fresh delegation tokens (retrying in %s; the current ones reach their maximum lifetime at %s): %v",
			wait, maxDateText(current), err))
		if err := r.sleepUntil(ctx, r.Clock.Now().Add(wait)); err != nil {
			return nil, err
		}
		wait = min(2*wait, r.MaxRetry)
	}
}

func (r *Refresher) sleepUntil(ctx context.Context, at time.Time) error {
	d := at.Sub(r.Clock.Now())
	if d <= 0 {
		// Already due (fresh tokens whose time has passed, a clock
		// step): one retry period still separates two attempts.
		d = r.MinRetry
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-r.Clock.After(d):
		return nil
	}
}

func (r *Refresher) log(msg string) {
	if r.Log != nil {
		r.Log(msg)
	}
}

// MaxDate is when the first delegation token in creds reaches its maximum
// lifetime, after which no renewal helps; ok is false when none has
// readable dates.
func MaxDate(creds *yarnrpc.Credentials) (first time.Time, ok bool) {
	for _, nt := range creds.Tokens {
		d, err := nt.Token.Delegation()
		if err != nil {
			continue
		}
		if !ok || d.MaxDate.Before(first) {
			first, ok = d.MaxDate, true
		}
	}
	return first, ok
}

// maxDateText is MaxDate for a log line.
func maxDateText(creds *yarnrpc.Credentials) string {
	if t, ok := MaxDate(creds); ok {
		return t.UTC().Format(time.RFC3339)
	}
	return "unknown"
}
