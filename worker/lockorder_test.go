package worker

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Issue 24: with a hundred tiny DAGs at once a worker wedged for good, its
// heartbeat holding the worker's mutex while taking an attempt's, and an
// attempt starting its command holding its own while taking the worker's.
// Here many attempts start, report progress, are killed and end while the
// worker heartbeats and samples memory every millisecond. The test fails
// on a deadlock (the attempts stop ending before a deadline: it prints
// every goroutine), and in a lockorder build (scripts/test.sh) on any
// inversion of the worker's locks, deadlock or not.
func TestAttemptsHeartbeatsAndMemoryWatchesUnderLoad(t *testing.T) {
	lockorder.Take() // only this test's inversions are its own
	am := startFakeAMBeating(t, "s3cret", time.Millisecond)
	wr := startWorker(t, am, "w1", func(o *Options) {
		o.MemoryMB = 1 << 20
		o.MemoryCheckInterval = time.Millisecond
	})
	const n = 150
	want := map[string]ebbpb.AttemptState{}
	for i := range n {
		id := fmt.Sprintf("att_%d", i)
		want[id] = ebbpb.AttemptState_ATTEMPT_SUCCEEDED
		if i%10 == 0 {
			want[id] = ebbpb.AttemptState_ATTEMPT_KILLED
		}
	}
	go func() {
		for i := range n {
			id := fmt.Sprintf("att_%d", i)
			script := `echo 0.5 > "$EBB_PROGRESS_FILE"; sleep 0.05`
			if want[id] == ebbpb.AttemptState_ATTEMPT_KILLED {
				script = `echo 0.1 > "$EBB_PROGRESS_FILE"; sleep 30` // a workload the AM kills
			}
			wr.conn.run(shellAttempt(id, "dag_1", script))
			if want[id] == ebbpb.AttemptState_ATTEMPT_KILLED {
				wr.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Kill{Kill: &ebbpb.KillAttempt{AttemptId: id, Reason: "test"}}})
			}
		}
	}()
	got := collectFinals(t, wr.conn, n, time.Minute)
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s ended %s, want %s", id, got[id], st)
		}
	}
	if !lockorder.Enabled {
		t.Log("not a lockorder build (-tags lockorder): only a deadlock fails this test")
		return
	}
	if v := lockorder.Take(); len(v) > 0 {
		t.Fatalf("%d lock order inversions, the first:\n%s", len(v), v[0])
	}
}

// collectFinals reads the worker's messages until n attempts have ended;
// past the deadline it fails with every goroutine's stack (a wedged
// worker shows where it waits).
func collectFinals(t *testing.T, c *amConn, n int, within time.Duration) map[string]ebbpb.AttemptState {
	t.Helper()
	got := map[string]ebbpb.AttemptState{}
	deadline := time.After(within)
	for len(got) < n {
		select {
		case m, ok := <-c.fromW:
			if !ok {
				t.Fatalf("stream ended after %d of %d attempts ended", len(got), n)
			}
			if u := m.GetAttempt(); u != nil && u.GetState() != ebbpb.AttemptState_ATTEMPT_RUNNING {
				got[u.GetAttemptId()] = u.GetState()
			}
		case <-deadline:
			buf := make([]byte, 4<<20)
			t.Fatalf("only %d of %d attempts ended within %s; goroutines:\n%s", len(got), n, within, buf[:runtime.Stack(buf, true)])
		}
	}
	return got
}
