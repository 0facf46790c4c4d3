package worker

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// fakeAM serves Worker.Connect like the AM would, and hands every
// registered worker's stream to the test as an amConn.
type fakeAM struct {
	ebbpb.UnimplementedWorkerServer
	secret string
	addr   string
	conns  chan *amConn
	// heartbeat is the interval the AM asks its workers for.
	heartbeat time.Duration
	// lostAfter is the silence after which it would lose a worker (0:
	// not said).
	lostAfter time.Duration
	// refuseRejoin, when set, is the code a reconnecting worker's
	// registration is refused with (an AM that declared it lost).
	refuseRejoin codes.Code
	// stop ends the server and every stream at once, as the AM's process
	// dying would.
	stop func()
}

// amConn is the AM's end of one worker's stream.
type amConn struct {
	register *ebbpb.Register
	toWorker chan *ebbpb.AMMessage
	fromW    chan *ebbpb.WorkerMessage
	closed   chan struct{}
}

func startFakeAM(t testing.TB, secret string) *fakeAM {
	t.Helper()
	return startFakeAMBeating(t, secret, 50*time.Millisecond)
}

// startFakeAMBeating starts a fake AM that asks for a heartbeat every interval.
func startFakeAMBeating(t testing.TB, secret string, interval time.Duration) *fakeAM {
	t.Helper()
	return startFakeAMOn(t, secret, "127.0.0.1:0", interval)
}

// startFakeAMOn starts a fake AM listening at addr.
func startFakeAMOn(t testing.TB, secret, addr string, interval time.Duration) *fakeAM {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	am := &fakeAM{secret: secret, addr: ln.Addr().String(), conns: make(chan *amConn, 4), heartbeat: interval}
	srv := grpc.NewServer()
	ebbpb.RegisterWorkerServer(srv, am)
	go func() { _ = srv.Serve(ln) }()
	am.stop = srv.Stop
	t.Cleanup(srv.Stop)
	return am
}

func (am *fakeAM) Connect(stream ebbpb.Worker_ConnectServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer "+am.secret {
		return status.Error(codes.Unauthenticated, "bad secret")
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	reg := first.GetRegister()
	if reg == nil {
		return status.Error(codes.InvalidArgument, "Register first")
	}
	if reg.GetReconnect() && am.refuseRejoin != codes.OK {
		return status.Error(am.refuseRejoin, "refused: declared lost")
	}
	if err := stream.Send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Registered{Registered: &ebbpb.Registered{
		WorkerId: reg.GetWorkerId(), HeartbeatIntervalMs: am.heartbeat.Milliseconds(), LostAfterMs: am.lostAfter.Milliseconds(),
	}}}); err != nil {
		return err
	}
	c := &amConn{register: reg, toWorker: make(chan *ebbpb.AMMessage, 16), fromW: make(chan *ebbpb.WorkerMessage, 1024), closed: make(chan struct{})}
	am.conns <- c
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				close(c.fromW)
				return
			}
			c.fromW <- m
		}
	}()
	for {
		select {
		case m := <-c.toWorker:
			if err := stream.Send(m); err != nil {
				return err
			}
		case <-c.closed:
			// Returning ends the stream: the worker sees io.EOF.
			return nil
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
	}
}

func (am *fakeAM) accept(t testing.TB) *amConn {
	t.Helper()
	select {
	case c := <-am.conns:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no worker registered within 10s")
		return nil
	}
}

func (c *amConn) send(m *ebbpb.AMMessage) { c.toWorker <- m }
func (c *amConn) close()                  { close(c.closed) }

func (c *amConn) run(r *ebbpb.RunAttempt) {
	c.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Run{Run: r}})
}

// waitUpdate returns the first update of attempt id in one of states,
// failing the test on an update in another final state or after a deadline.
func (c *amConn) waitUpdate(t testing.TB, id string, want ebbpb.AttemptState) *ebbpb.AttemptUpdate {
	t.Helper()
	return c.waitUpdateWithin(t, id, want, 20*time.Second)
}

// waitUpdateWithin is waitUpdate with another deadline, for big inputs.
func (c *amConn) waitUpdateWithin(t testing.TB, id string, want ebbpb.AttemptState, within time.Duration) *ebbpb.AttemptUpdate {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-c.fromW:
			if !ok {
				t.Fatalf("stream ended while waiting for %s %s", id, want)
			}
			u := m.GetAttempt()
			if u == nil || u.GetAttemptId() != id {
				continue
			}
			if u.GetState() == want {
				return u
			}
			// Neither a progress report nor an ask to commit (repeated
			// until granted) is an end.
			if st := u.GetState(); st != ebbpb.AttemptState_ATTEMPT_RUNNING && st != ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING {
				t.Fatalf("attempt %s ended %s (exit %d): %s; want %s", id, u.GetState(), u.GetExitCode(), u.GetDiagnostics(), want)
			}
		case <-deadline:
			t.Fatalf("no %s update for %s within %s", want, id, within)
		}
	}
}

// workerRun is one worker started by a test.
type workerRun struct {
	opts Options
	done chan error
	conn *amConn
}

func startWorker(t testing.TB, am *fakeAM, id string, mutate func(*Options)) *workerRun {
	t.Helper()
	dir := t.TempDir()
	o := Options{
		AMAddress: am.addr, Secret: am.secret, WorkerID: id, Group: "g", Node: "n1", ContainerID: "c-" + id,
		MemoryMB: 1024, VCores: 2, WorkDir: dir + "/work", LogDir: dir + "/logs",
		MemoryCheckInterval: 50 * time.Millisecond,
	}
	if mutate != nil {
		mutate(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wr := &workerRun{opts: o, done: make(chan error, 1)}
	go func() { wr.done <- Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-wr.done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Logf("worker %s ended with %v", id, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("worker %s did not exit after cancel", id)
		}
	})
	wr.conn = am.accept(t)
	return wr
}

// wait returns Run's error, failing the test if it takes longer than 10s.
func (wr *workerRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-wr.done:
		wr.done <- err // for the cleanup
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("worker did not exit within 10s")
		return nil
	}
}

func shellAttempt(id, dag, script string) *ebbpb.RunAttempt {
	return &ebbpb.RunAttempt{
		AttemptId: id, DagId: dag, DagName: "test", Vertex: "v", Parallelism: 1, MemoryMb: 64,
		Command: []string{"/bin/sh", "-c", script},
	}
}
