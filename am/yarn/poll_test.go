package yarn

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

func TestPollDoublesWhileOutstandingAndResets(t *testing.T) {
	ms := time.Millisecond
	p := Poll{Initial: 200 * ms, Interval: time.Second}
	steps := []struct {
		outstanding bool
		want        time.Duration
	}{
		{false, 1000 * ms}, // nothing asked for: the normal interval
		{true, 200 * ms},   // asked: Initial
		{true, 400 * ms},   // still not here: twice that
		{true, 800 * ms},   // and again
		{true, 1000 * ms},  // 1600 capped at Interval
		{true, 1000 * ms},  // stays there while the cluster has no room
		{false, 1000 * ms}, // all arrived
		{true, 200 * ms},   // a new ask starts from Initial again
		{true, 400 * ms},
	}
	for i, s := range steps {
		if got := p.Next(s.outstanding); got != s.want {
			t.Fatalf("step %d (outstanding %v): wait %s, want %s", i, s.outstanding, got, s.want)
		}
	}
}

func TestPollInitialOffOrAboveTheInterval(t *testing.T) {
	for _, initial := range []time.Duration{0, 5 * time.Second} {
		p := Poll{Initial: initial, Interval: time.Second}
		for i := range 3 {
			if got := p.Next(true); got != time.Second {
				t.Errorf("Initial %s, outstanding allocate %d: wait %s, want the interval (1s)", initial, i, got)
			}
		}
	}
}

// stepClock is a Clock whose timers fire only when the test says: every
// After is handed to the test on waits, in order.
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan stepWait
}

type stepWait struct {
	d time.Duration
	c chan time.Time
}

func newStepClock() *stepClock {
	return &stepClock{now: time.Unix(5000, 0), waits: make(chan stepWait, 64)}
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.waits <- stepWait{d, ch}
	return ch
}

// next is the next wait asked for; it fails the test if there is none
// within a generous deadline (a liveness guard, not a timing check).
func (c *stepClock) next(t *testing.T, want time.Duration, why string) stepWait {
	t.Helper()
	select {
	case w := <-c.waits:
		if w.d != want {
			t.Fatalf("%s: the wait is %s, want %s", why, w.d, want)
		}
		return w
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no further wait was asked for", why)
		return stepWait{}
	}
}

// fire moves the clock to the wait's end and ends it.
func (c *stepClock) fire(w stepWait) {
	c.mu.Lock()
	c.now = c.now.Add(w.d)
	now := c.now
	c.mu.Unlock()
	w.c <- now
}

// The heartbeat itself, on the injected clock: allocate comes 200, then
// 400 ms after the last while the ask is unmet, the normal interval once
// the container is here, and 200 ms again for the next ask. The fake RM
// is read only after the heartbeat asked for its next wait, which it does
// after its allocate returned.
func TestHeartbeatPollsFastWhileContainersAreOutstanding(t *testing.T) {
	h := newHarness(t)
	clk := newStepClock()
	h.w.o.Clock, h.w.o.Heartbeat, h.w.o.InitialAllocation = clk, time.Second, 200*time.Millisecond
	h.w.Start()
	t.Cleanup(func() { h.w.cancel(); <-h.w.hbDone })
	ms := time.Millisecond

	clk.next(t, time.Second, "at start, nothing asked for")
	h.w.WantWorkers(clk.Now(), core.WantWorkers{Group: small, Total: 1}) // nudges: allocate #1 at once
	w := clk.next(t, 200*ms, "after the allocate that sent the ask")
	if n := len(h.rm.requests); n != 1 || len(h.rm.requests[0].Asks) != 1 {
		t.Fatalf("allocates so far: %+v, want one carrying the ask", h.rm.requests)
	}
	clk.fire(w) // allocate #2: nothing yet
	w = clk.next(t, 400*ms, "after an allocate that brought nothing")
	h.rm.script = []fakeAnswer{{resp: AllocateResponse{ResponseID: 3, Allocated: []Container{ctr(2, 1, "n1:1")}, NMTokens: []NMToken{tok("n1:1")}}}}
	clk.fire(w) // allocate #3: the container
	w = clk.next(t, time.Second, "once the container is here")
	if n := len(h.rm.requests); n != 3 || h.w.Stats().Allocated != 1 {
		t.Fatalf("%d allocates, %d containers; want 3 and 1", n, h.w.Stats().Allocated)
	}
	clk.fire(w)
	clk.next(t, time.Second, "idle")
	h.w.WantWorkers(clk.Now(), core.WantWorkers{Group: small, Total: 2})
	// The nudge comes right after the last allocate: it waits out minGap.
	w = clk.next(t, 100*ms, "a new want right after an allocate")
	clk.fire(w)
	clk.next(t, 200*ms, "a new ask starts from the initial interval again")
	if n := len(h.rm.requests); n != 5 {
		t.Fatalf("%d allocates, want 5", n)
	}
}

// Unregister asks again 10 ms after a "not yet", doubling up to 100 ms:
// the RM's save is quick and the client is waiting for it.
func TestFinishAsksAgainSoonThenBacksOff(t *testing.T) {
	h := newHarness(t)
	clk := newStepClock()
	h.w.o.Clock = clk
	h.rm.notYet = 5
	done := make(chan error, 1)
	go func() { done <- h.w.Finish(context.Background(), Succeeded, "done") }()
	for _, ms := range []time.Duration{10, 20, 40, 80, 100} {
		clk.fire(clk.next(t, ms*time.Millisecond, fmt.Sprintf("unregister, the RM said 'not yet' (wait %d ms)", ms)))
	}
	select {
	case err := <-done:
		if err != nil || len(h.rm.finishes) != 6 {
			t.Fatalf("finish: %v after %d calls, want nil after 6", err, len(h.rm.finishes))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Finish did not return after the RM confirmed")
	}
}
