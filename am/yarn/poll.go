package yarn

import "time"

// Poll is a schedule for asking again while something is awaited: the
// first wait is Initial, then twice that, doubling up to Interval; with
// nothing awaited it is Interval, and the next wait starts again at
// Initial. It is pure: the caller keeps the time.
//
// The allocate heartbeat runs on it the way Spark on YARN does
// (spark.yarn.scheduler.initial-allocation.interval): while containers are
// asked for and not yet here, allocate comes 200 ms after the last one,
// doubling up to mr3.am.rm.heartbeat.interval.ms. Why: the RM places a
// container on a NodeManager's heartbeat, which can be much shorter than
// the AM's (100 ms on the test cluster), and the AM learns of it only in
// the allocate response after that; a fixed interval left a granted
// container waiting up to a whole interval, most of a small DAG's time.
// The doubling keeps a cluster with no room from being polled fast for
// long. Unregister (Finish) waits for the RM's confirmation on it too.
type Poll struct {
	Initial, Interval time.Duration
	next              time.Duration // the wait after the next outstanding allocate; 0 = Initial
}

// Next is how long to wait before asking again; outstanding tells whether
// something is still awaited (containers asked for and not yet allocated).
func (p *Poll) Next(outstanding bool) time.Duration {
	initial := min(p.Initial, p.Interval)
	if initial <= 0 {
		initial = p.Interval
	}
	if !outstanding {
		p.next = 0
		return p.Interval
	}
	wait := p.next
	if wait == 0 {
		wait = initial
	}
	p.next = min(2*wait, p.Interval)
	return wait
}

// Clock is the time the heartbeat waits on: the wall clock in the AM, a
// fake one in tests.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
