package yarn

import "time"

// AllocPoll is the allocate heartbeat's schedule, the one Spark on YARN
// uses (spark.yarn.scheduler.initial-allocation.interval): while
// containers are asked for and not yet here, the next allocate comes
// Initial after the last one, then twice that, doubling up to Interval;
// with nothing outstanding it is Interval, and the next outstanding ask
// starts again at Initial.
//
// Why: the RM places a container on a NodeManager's heartbeat, which can
// be much shorter than the AM's (100 ms on the test cluster), and the AM
// only learns of it in the allocate response after that. A fixed interval
// leaves a granted container waiting up to a whole Interval, which is most
// of a small DAG's time; the doubling keeps a cluster with no room from
// being polled fast for long. It is pure: the heartbeat keeps the time.
type AllocPoll struct {
	Initial, Interval time.Duration
	next              time.Duration // the wait after the next outstanding allocate; 0 = Initial
}

// Next is how long to wait after an allocate; outstanding tells whether
// containers are still asked for and not yet allocated.
func (p *AllocPoll) Next(outstanding bool) time.Duration {
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
