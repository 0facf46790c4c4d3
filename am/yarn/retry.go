package yarn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

// Retry is how a client of the ResourceManager outlasts a restart of the
// RM, or its failover to a standby, with the semantics (and keys) of
// Hadoop's RMProxy:
//
// With one RM, a call that gets no answer (refused, reset, timed out) or a
// retriable one is tried again every Interval
// (yarn.resourcemanager.connect.retry-interval.ms) until MaxWait
// (yarn.resourcemanager.connect.max-wait.ms) has been spent waiting;
// negative MaxWait waits for ever, and a MaxWait below Interval tries once.
//
// With several RMs (RM HA), such a call, or one a standby refuses
// (StandbyException), goes to the next RM in rm-ids order: the first
// failover at once, the n-th after FailoverBase·2^(n-1), at most
// FailoverMax, times a random factor in [0.5, 1.5)
// (yarn.client.failover-sleep-base-ms, -max-ms, both defaulting to
// Interval), at most FailoverAttempts failovers
// (yarn.client.failover-max-attempts; negative: MaxWait / FailoverBase).
//
// Any other answer, error or not, is the answer. When the bound runs out
// the call fails with an *RMUnreachableError naming the RMs and the bound.
type Retry struct {
	MaxWait          time.Duration
	Interval         time.Duration
	FailoverAttempts int
	FailoverBase     time.Duration
	FailoverMax      time.Duration
}

// Hadoop's defaults (yarn-default.xml).
const (
	DefaultRMConnectMaxWait  = 15 * time.Minute
	DefaultRMConnectInterval = 30 * time.Second
)

// HadoopRetry is Retry with Hadoop's defaults: 15 minutes, every 30 s;
// under HA 30 failovers, 30 s apart after the first.
func HadoopRetry() Retry {
	return Retry{MaxWait: DefaultRMConnectMaxWait, Interval: DefaultRMConnectInterval, FailoverAttempts: -1,
		FailoverBase: DefaultRMConnectInterval, FailoverMax: DefaultRMConnectInterval}
}

// forever: MaxWait negative.
func (r Retry) forever() bool { return r.MaxWait < 0 }

// maxRetries is how many times one RM is tried again (no HA).
func (r Retry) maxRetries() int {
	switch {
	case r.forever():
		return -1
	case r.Interval <= 0 || r.MaxWait < r.Interval:
		return 0 // try once, as Hadoop does
	}
	return int(r.MaxWait / r.Interval)
}

// maxFailovers is how many failovers a call may make (HA).
func (r Retry) maxFailovers() int {
	switch {
	case r.FailoverAttempts >= 0:
		return r.FailoverAttempts
	case r.forever():
		return -1
	case r.FailoverBase <= 0:
		return 0
	}
	return int(r.MaxWait / r.FailoverBase)
}

// failoverDelay is the wait before failover number n (0-based), jitter a
// number in [0, 1).
func (r Retry) failoverDelay(n int, jitter float64) time.Duration {
	if n == 0 {
		return 0
	}
	d := r.FailoverBase
	for i := 0; i < n && d < r.FailoverMax; i++ {
		d *= 2
	}
	d = min(d, r.FailoverMax)
	return time.Duration(float64(d) * (0.5 + jitter))
}

// bound names the keys that ended the wait, with their values.
func (r Retry) bound(ha bool) string {
	if ha {
		n := fmt.Sprintf("yarn.client.failover-max-attempts=%d", r.FailoverAttempts)
		if r.FailoverAttempts < 0 {
			n = fmt.Sprintf("%d failovers (yarn.client.failover-max-attempts unset: yarn.resourcemanager.connect.max-wait.ms=%d / yarn.client.failover-sleep-base-ms)",
				r.maxFailovers(), r.MaxWait.Milliseconds())
		}
		return fmt.Sprintf("%s, yarn.client.failover-sleep-base-ms=%d, yarn.client.failover-sleep-max-ms=%d",
			n, r.FailoverBase.Milliseconds(), r.FailoverMax.Milliseconds())
	}
	return fmt.Sprintf("yarn.resourcemanager.connect.max-wait.ms=%d, one try every yarn.resourcemanager.connect.retry-interval.ms=%d",
		r.MaxWait.Milliseconds(), r.Interval.Milliseconds())
}

// RMUnreachableError: no RM gave an answer within the Retry's bound.
type RMUnreachableError struct {
	Addrs  []string
	Tries  int
	Waited time.Duration
	Bound  string
	Last   error
}

func (e *RMUnreachableError) Error() string {
	what := fmt.Sprintf("ResourceManager at %s unreachable", e.Addrs[0])
	if len(e.Addrs) > 1 {
		what = fmt.Sprintf("no active ResourceManager among %v", e.Addrs)
	}
	return fmt.Sprintf("%s after %d tries in %s (bound: %s); last error: %v", what, e.Tries, e.Waited.Round(time.Millisecond), e.Bound, e.Last)
}

func (e *RMUnreachableError) Unwrap() error { return e.Last }

// rmRing runs calls at the current one of several RMs under a Retry;
// which RM is current is shared by every call through the ring.
type rmRing struct {
	addrs []string
	retry Retry
	// jitter and after are the randomness and the timer (tests replace
	// them).
	jitter func() float64
	after  func(time.Duration) <-chan time.Time
	now    func() time.Time
	// logf, when set, tells of the first retry of a call, every tenth,
	// and of the answer that ends them.
	logf func(format string, args ...any)

	mu  sync.Mutex
	cur int
}

func newRMRing(addrs []string, r Retry) *rmRing {
	return &rmRing{addrs: addrs, retry: r, jitter: rand.Float64, after: time.After, now: time.Now}
}

func (g *rmRing) current() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cur
}

// moveOn makes the RM after i current, unless another call already moved.
func (g *rmRing) moveOn(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur == i {
		g.cur = (i + 1) % len(g.addrs)
	}
}

// do runs call at the current RM until it gets an answer, as Retry says.
func (g *rmRing) do(ctx context.Context, call func(i int) error) error {
	ha := len(g.addrs) > 1
	start := g.now()
	for tries := 1; ; tries++ {
		i := g.current()
		err := call(i)
		if err == nil || ctx.Err() != nil || !retriesAtRM(err) {
			if tries > 1 && g.logf != nil {
				g.logf("yarn: ResourceManager %s answered after %d tries in %s", g.addrs[i], tries, g.now().Sub(start).Round(time.Millisecond))
			}
			return err
		}
		var wait time.Duration
		if ha {
			n := tries - 1 // failovers so far
			if m := g.retry.maxFailovers(); m >= 0 && n >= m {
				return &RMUnreachableError{Addrs: g.addrs, Tries: tries, Waited: g.now().Sub(start), Bound: g.retry.bound(true), Last: fmt.Errorf("%s: %w", g.addrs[i], err)}
			}
			g.moveOn(i)
			wait = g.retry.failoverDelay(n, g.jitter())
		} else {
			if m := g.retry.maxRetries(); m >= 0 && tries > m {
				return &RMUnreachableError{Addrs: g.addrs, Tries: tries, Waited: g.now().Sub(start), Bound: g.retry.bound(false), Last: err}
			}
			wait = g.retry.Interval
		}
		if g.logf != nil && (tries == 1 || tries%10 == 0) {
			g.logf("yarn: ResourceManager %s: %v; try %d, the next in %s (bound: %s)", g.addrs[i], err, tries, wait.Round(time.Millisecond), g.retry.bound(ha))
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (waiting to try the ResourceManager again after: %w)", ctx.Err(), err)
			case <-g.after(wait):
			}
		}
	}
}

// retriesAtRM: err is no answer from the RM (refused, reset, timed out),
// or one that says to try again or elsewhere (RetriableException, a
// standby's StandbyException). A failed SASL handshake, a protocol error
// or the caller's own deadline is final, as is any other remote answer.
func retriesAtRM(err error) bool {
	var re *yarnrpc.RemoteError
	if errors.As(err, &re) {
		return re.Class == standbyException || re.Retriable()
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		!errors.Is(err, yarnrpc.ErrSASL) && !errors.Is(err, yarnrpc.ErrProtocol) && !errors.Is(err, yarnrpc.ErrClosed)
}

const standbyException = "org.apache.hadoop.ipc.StandbyException"
