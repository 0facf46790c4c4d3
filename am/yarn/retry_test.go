package yarn

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

var errRefused = errors.New("dial tcp rm:8030: connect: connection refused")

// calls runs ring.do with call answering from answers in turn (nil:
// success) and returns the RM index of each call and the result.
func runRing(g *rmRing, answers ...error) ([]int, error) {
	var at []int
	err := g.do(context.Background(), func(i int) error {
		at = append(at, i)
		if len(at) > len(answers) {
			return nil
		}
		return answers[len(at)-1]
	})
	return at, err
}

// One RM: no answer is tried again every retry interval until it answers.
func TestRetryOneRMEveryInterval(t *testing.T) {
	g := newRMRing([]string{"rm:8030"}, Retry{MaxWait: time.Minute, Interval: 2 * time.Second})
	waits := instant(g)
	at, err := runRing(g, errRefused, errRefused, &yarnrpc.RemoteError{Class: "org.apache.hadoop.ipc.RetriableException"}, nil)
	if err != nil || len(at) != 4 {
		t.Fatalf("%d calls, %v; want 4 and success", len(at), err)
	}
	if want := []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}; !reflect.DeepEqual(*waits, want) {
		t.Errorf("waits %v, want %v", *waits, want)
	}
}

// One RM: max-wait / retry-interval retries, then an error naming the RM
// and the bound; a max-wait below the interval tries once.
func TestRetryOneRMBound(t *testing.T) {
	g := newRMRing([]string{"rm:8030"}, Retry{MaxWait: 3 * time.Second, Interval: time.Second})
	instant(g)
	at, err := runRing(g, errRefused, errRefused, errRefused, errRefused, errRefused)
	var ue *RMUnreachableError
	if !errors.As(err, &ue) || len(at) != 4 || !errors.Is(err, errRefused) {
		t.Fatalf("%d calls, %v; want 4 and an RMUnreachableError wrapping the last error", len(at), err)
	}
	for _, want := range []string{"ResourceManager at rm:8030 unreachable after 4 tries", "yarn.resourcemanager.connect.max-wait.ms=3000", "retry-interval.ms=1000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	g = newRMRing([]string{"rm:8030"}, Retry{MaxWait: 500 * time.Millisecond, Interval: time.Second})
	instant(g)
	if at, err := runRing(g, errRefused); len(at) != 1 || err == nil {
		t.Errorf("max-wait below the interval: %d calls, %v; want one try", len(at), err)
	}
}

// Final answers are not retried: another remote exception, a failed SASL
// handshake, the caller's deadline.
func TestRetryStopsAtFinalErrors(t *testing.T) {
	for _, final := range []error{
		&yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException"},
		yarnrpc.ErrSASL, context.DeadlineExceeded,
	} {
		g := newRMRing([]string{"rm1:8032", "rm2:8032"}, HadoopRetry())
		instant(g)
		if at, err := runRing(g, final); len(at) != 1 || !errors.Is(err, final) {
			t.Errorf("%v: %d calls, %v; want the error after one call", final, len(at), err)
		}
	}
}

// HA: the first failover at once, then base·2^n up to the maximum (times
// the jitter factor, 1 here); failovers alternate between the RMs and the
// ring remembers the one that answered.
func TestRetryFailoverBackoff(t *testing.T) {
	g := newRMRing([]string{"rm1:8032", "rm2:8032"}, Retry{MaxWait: time.Hour, Interval: time.Second,
		FailoverAttempts: -1, FailoverBase: time.Second, FailoverMax: 4 * time.Second})
	waits := instant(g)
	at, err := runRing(g, errRefused, standby, errRefused, standby, nil)
	if err != nil || !reflect.DeepEqual(at, []int{0, 1, 0, 1, 0}) {
		t.Fatalf("calls at %v, %v; want 0 1 0 1 0 and success", at, err)
	}
	if want := []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second}; !reflect.DeepEqual(*waits, want) {
		t.Errorf("waits %v, want %v (the first failover without one)", *waits, want)
	}
	if g.current() != 0 {
		t.Errorf("current RM %d after rm1 answered, want 0", g.current())
	}
	r := Retry{MaxWait: 10 * time.Second, FailoverAttempts: -1, FailoverBase: 2 * time.Second}
	if r.maxFailovers() != 5 {
		t.Errorf("failovers from max-wait 10 s / base 2 s: %d, want 5", r.maxFailovers())
	}
	if d := (Retry{FailoverBase: time.Second, FailoverMax: time.Minute}).failoverDelay(2, 0); d != 2*time.Second {
		t.Errorf("jitter 0: %s, want half of 4 s", d)
	}
}

// A cancelled caller ends the wait between tries.
func TestRetryWaitEndsWithTheContext(t *testing.T) {
	g := newRMRing([]string{"rm:8030"}, Retry{MaxWait: time.Hour, Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	// The caller gives up while the ring waits for the next try.
	g.after = func(time.Duration) <-chan time.Time { cancel(); return make(chan time.Time) }
	calls := 0
	err := g.do(ctx, func(int) error { calls++; return errRefused })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("%d calls, %v; want one and context.Canceled", calls, err)
	}
}
