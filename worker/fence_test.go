package worker

import (
	"errors"
	"testing"
	"time"
)

// The lease mirrors the AM's worker timeout (here 30 s): heartbeats 1 s
// apart keep it; a gap of 30 s (the process stopped) breaks it for good,
// whether a heartbeat, a commit's check or the end of the session sees
// the gap first; an AM that gives no bound never fences.
func TestLeaseBreaksOnAGapOfTheAMTimeout(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var l lease
	l.start(t0, 30*time.Second)
	for i := 1; i <= 60; i++ { // a minute of heartbeats 1 s apart
		if err := l.renew(t0.Add(time.Duration(i) * time.Second)); err != nil {
			t.Fatalf("renewal %d: %v", i, err)
		}
	}
	last := t0.Add(60 * time.Second)
	if err := l.check(last.Add(29 * time.Second)); err != nil {
		t.Fatalf("29 s after the last heartbeat: %v, want the lease kept", err)
	}
	for name, see := range map[string]func(*lease, time.Time) error{
		"renew": (*lease).renew, "check": (*lease).check, "suspend": (*lease).suspend,
	} {
		l2 := lease{lostAfter: 30 * time.Second, last: last}
		err := see(&l2, last.Add(45*time.Second))
		var fe *FencedError
		if !errors.As(err, &fe) || fe.Silent != 45*time.Second || fe.LostAfter != 30*time.Second {
			t.Fatalf("%s 45 s after the last heartbeat: %v, want fenced after 45 s of a 30 s bound", name, err)
		}
		// Broken for good: a heartbeat at once after does not mend it.
		if err := l2.renew(last.Add(46 * time.Second)); !errors.As(err, &fe) {
			t.Fatalf("after %s saw the gap, a renewal succeeded", name)
		}
	}
	var none lease
	none.start(t0, 0)
	if err := none.check(t0.Add(time.Hour)); err != nil {
		t.Fatalf("an AM that gives no bound: %v, want no fence", err)
	}
	// Between AM attempts (the stream broke: suspended) a long wait for
	// the next one is no fence; its registration starts a new lease.
	var s lease
	s.start(t0, 30*time.Second)
	if err := s.suspend(t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.check(t0.Add(2 * time.Minute)); err != nil {
		t.Fatalf("waiting for a new AM attempt: %v, want no fence", err)
	}
}
