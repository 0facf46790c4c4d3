package worker

import (
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// TestWorkerRejoinsANewAMAttempt: the AM's stream breaks without a Stop
// (its process died); the worker keeps its running attempt and its
// outputs, reads the new AM's address from the AM file, registers there
// as a reconnecting worker naming both, and tells it how its attempts
// ended, including one that ended before the AM went away.
func TestWorkerRejoinsANewAMAttempt(t *testing.T) {
	am2, amFile, wr := startRejoiningWorker(t)
	c1 := wr.conn
	c1.run(shellAttempt("done1", "d", "mkdir -p $EBB_OUTPUT_DIR/c && echo x > $EBB_OUTPUT_DIR/c/0"))
	c1.waitUpdate(t, "done1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	before := time.Now()
	c1.run(shellAttempt("slow", "d", "sleep 2"))
	c1.waitUpdate(t, "slow", ebbpb.AttemptState_ATTEMPT_RUNNING)
	after := time.Now()
	if err := os.WriteFile(amFile, []byte(am2.addr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c1.close() // the AM goes away without a Stop
	c2 := am2.accept(t)
	reg := c2.register
	var held []string
	for _, a := range reg.GetAttempts() {
		held = append(held, a.GetAttemptId())
		// Each says when the worker took it, for the new AM's record.
		if at := time.UnixMilli(a.GetStartedUnixMs()); a.GetAttemptId() == "slow" && (at.Before(before.Truncate(time.Millisecond)) || at.After(after)) {
			t.Errorf("slow says it started at %v, not between its RunAttempt (%v) and its RUNNING (%v)", at, before, after)
		}
	}
	sort.Strings(held)
	if !reg.GetReconnect() || len(held) != 2 || held[0] != "done1" || held[1] != "slow" {
		t.Fatalf("registered with reconnect=%v attempts %v; want a reconnect naming done1 and slow", reg.GetReconnect(), held)
	}
	if out := reg.GetOutputs(); len(out) != 1 || out[0] != "done1" {
		t.Fatalf("registered with outputs %v, want done1's", out)
	}
	c2.waitUpdate(t, "done1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	c2.waitUpdate(t, "slow", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	select {
	case err := <-wr.done:
		t.Fatalf("the worker exited (%v) instead of serving the new AM", err)
	default:
	}
}

// TestWorkerWithoutAMFileExitsWhenTheAMGoes: without an AM file there is
// nobody to rejoin: the worker ends with ErrStreamBroken, as before.
func TestWorkerWithoutAMFileExitsWhenTheAMGoes(t *testing.T) {
	am := startFakeAM(t, "s3cret")
	wr := startWorker(t, am, "w1", nil)
	wr.conn.close()
	if err := wr.wait(t); err == nil {
		t.Fatal("the worker ended without an error although its AM went away")
	}
}

// A rejoining worker tells the new AM attempt the last progress of the
// attempts it adopts: that AM adopts them at progress 0, and the worker
// reports progress only when it changes, so without it an attempt nearly
// done would look stuck to speculation and get a needless backup.
func TestRejoinResendsProgress(t *testing.T) {
	am2, amFile, wr := startRejoiningWorker(t)
	c1 := wr.conn
	c1.run(shellAttempt("p", "d", "echo 0.9 > $EBB_PROGRESS_FILE && sleep 5"))
	for u := c1.waitUpdate(t, "p", ebbpb.AttemptState_ATTEMPT_RUNNING); u.GetProgress() != 0.9; {
		u = c1.waitUpdate(t, "p", ebbpb.AttemptState_ATTEMPT_RUNNING)
	}
	if err := os.WriteFile(amFile, []byte(am2.addr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c1.close()
	c2 := am2.accept(t)
	if u := c2.waitUpdate(t, "p", ebbpb.AttemptState_ATTEMPT_RUNNING); u.GetProgress() != 0.9 {
		t.Fatalf("the new AM heard progress %v for p, want its last, 0.9", u.GetProgress())
	}
}

// What a rejoining worker repeats of an attempt still running: the ask
// to commit of one granted its commit (it is committing, and the new AM
// must know, or it may start a backup that commits the task twice), the
// last progress of one that has some, nothing of one not started or
// ended.
func TestResendStateOfARunningAttempt(t *testing.T) {
	cases := []struct {
		name           string
		granted, final bool
		progress       float32
		want           ebbpb.AttemptState // 0: nothing sent
		wantProgress   float32
	}{
		{"granted", true, false, 0.5, ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING, 1},
		{"running", false, false, 0.4, ebbpb.AttemptState_ATTEMPT_RUNNING, 0.4},
		{"no progress yet", false, false, 0, 0, 0},
		{"ended", true, true, 1, 0, 0},
	}
	for _, c := range cases {
		a := &attempt{req: &ebbpb.RunAttempt{AttemptId: "a"}, granted: make(chan struct{}), started: true, final: c.final, progress: c.progress}
		if c.granted {
			a.grant()
		}
		out := newSender(nil) // not looping: what it would send stays queued
		a.resendState(out)
		var got []*ebbpb.AttemptUpdate
		for len(out.queue) > 0 {
			got = append(got, (<-out.queue).msg.GetAttempt())
		}
		switch {
		case c.want == 0 && len(got) != 0:
			t.Errorf("%s: sent %v, want nothing", c.name, got)
		case c.want != 0 && (len(got) != 1 || got[0].GetState() != c.want || got[0].GetProgress() != c.wantProgress):
			t.Errorf("%s: sent %v, want one %s at progress %v", c.name, got, c.want, c.wantProgress)
		}
	}
}

// startRejoiningWorker starts two fake AM attempts and a worker of the
// first that reads its AM's address from amFile (which names the first)
// and may rejoin within 20 s; it returns the second.
func startRejoiningWorker(t *testing.T) (am2 *fakeAM, amFile string, wr *workerRun) {
	t.Helper()
	am1 := startFakeAM(t, "s3cret")
	am2 = startFakeAM(t, "s3cret")
	amFile = filepath.Join(t.TempDir(), "am")
	if err := os.WriteFile(amFile, []byte(am1.addr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wr = startWorker(t, am1, "w1", func(o *Options) { o.AMFile, o.RejoinWithin = amFile, 20*time.Second })
	return am2, amFile, wr
}

// TestWorkerRejoinsAnAMInPlace: on Kubernetes the AM's container restarts
// in its pod, at the same address. Its worker keeps its running attempt
// while nobody listens there, registers again once the new AM does,
// naming the attempt and the output it holds, and tells it how the
// attempt ended.
func TestWorkerRejoinsAnAMInPlace(t *testing.T) {
	am1 := startFakeAM(t, "s3cret")
	wr := startWorker(t, am1, "w1", func(o *Options) { o.RejoinInPlace, o.RejoinWithin = true, 20*time.Second })
	c1 := wr.conn
	c1.run(shellAttempt("done1", "d", "mkdir -p $EBB_OUTPUT_DIR/c && echo x > $EBB_OUTPUT_DIR/c/0"))
	c1.waitUpdate(t, "done1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	c1.run(shellAttempt("slow", "d", "sleep 2"))
	c1.waitUpdate(t, "slow", ebbpb.AttemptState_ATTEMPT_RUNNING)
	am1.stop() // the process dies: its streams break, its port closes
	// Until the AM is back, what answers at its address is no AM (a port
	// that takes connections and closes them): the worker dials it again
	// and again.
	dud, err := net.Listen("tcp", am1.addr)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := dud.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		c, err := dud.Accept()
		if err != nil {
			t.Fatalf("the worker dialled its AM's address %d times, then not within 10 s: %v", i, err)
		}
		_ = c.Close() // nothing was sent on it
	}
	_ = dud.Close() // only the test used it
	am2 := startFakeAMOn(t, "s3cret", am1.addr, 50*time.Millisecond)
	c2 := am2.accept(t)
	reg := c2.register
	if !reg.GetReconnect() || len(reg.GetAttempts()) != 2 || len(reg.GetOutputs()) != 1 || reg.GetOutputs()[0] != "done1" {
		t.Fatalf("registered with reconnect=%v attempts %v outputs %v; want a reconnect naming done1 and slow, and done1's output",
			reg.GetReconnect(), reg.GetAttempts(), reg.GetOutputs())
	}
	c2.waitUpdate(t, "slow", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	select {
	case err := <-wr.done:
		t.Fatalf("the worker exited (%v) instead of serving the AM back in place", err)
	default:
	}
}

// An AM that answers in place and refuses the worker (the same AM, which
// declared it lost when its stream broke) ends it at once, and one that
// never comes back ends it after RejoinWithin: no worker waits for ever.
func TestWorkerInPlaceGivesUp(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		am := startFakeAM(t, "s3cret")
		am.refuseRejoin = codes.FailedPrecondition
		wr := startWorker(t, am, "w1", func(o *Options) { o.RejoinInPlace, o.RejoinWithin = true, time.Minute })
		registered(t, wr)
		wr.conn.close() // the AM closes the stream without a Stop
		err := wr.wait(t)
		if st, _ := status.FromError(err); st.Code() != codes.FailedPrecondition {
			t.Fatalf("the worker ended with %v, want the AM's refusal", err)
		}
	})
	t.Run("never back", func(t *testing.T) {
		am := startFakeAM(t, "s3cret")
		wr := startWorker(t, am, "w1", func(o *Options) { o.RejoinInPlace, o.RejoinWithin = true, time.Second })
		registered(t, wr)
		am.stop()
		err := wr.wait(t)
		if err == nil || !strings.Contains(err.Error(), "did not come back at "+am.addr+" within 1s") {
			t.Fatalf("the worker ended with %v, want that the AM did not come back", err)
		}
	})
}

// registered waits for the worker's first message after Registered: it
// has taken the answer (a stream cut before that is a failed first
// registration, which no worker retries).
func registered(t *testing.T, wr *workerRun) {
	t.Helper()
	select {
	case <-wr.conn.fromW:
	case <-time.After(10 * time.Second):
		t.Fatal("no message from the worker within 10 s of its registration")
	}
}
