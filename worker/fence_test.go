package worker

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
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

// A worker that could not heartbeat for the AM's bound fences itself: the
// AM here asks for a heartbeat every 2 s but would lose the worker after
// 300 ms of silence, so a sink attempt that ends 600 ms in finds the lease
// broken (as after a stop of 600 ms): it commits nothing, nothing more is
// sent, and Run ends with a FencedError.
func TestFencedWorkerCommitsNothingAndExits(t *testing.T) {
	am := startFakeAMBeating(t, "s", 2*time.Second)
	am.lostAfter = 300 * time.Millisecond
	wr := startWorker(t, am, "w1", nil)
	commitDir := t.TempDir()
	a := shellAttempt("a1", "d1", `sleep 0.6; echo late > "$EBB_OUTPUT_DIR/f"`)
	a.CommitDir = commitDir
	wr.conn.run(a)
	err := wr.wait(t)
	var fe *FencedError
	if !errors.As(err, &fe) || fe.LostAfter != 300*time.Millisecond || fe.Silent < 300*time.Millisecond {
		t.Fatalf("Run = %v, want a FencedError after 300 ms", err)
	}
	if es, _ := os.ReadDir(commitDir); len(es) != 0 {
		t.Errorf("the fenced worker committed %d entries to %s", len(es), commitDir)
	}
	for m := range wr.conn.fromW {
		if u := m.GetAttempt(); u != nil && u.GetState() == ebbpb.AttemptState_ATTEMPT_SUCCEEDED {
			t.Errorf("the fenced worker reported %s SUCCEEDED", u.GetAttemptId())
		}
	}
}
