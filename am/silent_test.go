package am

import (
	"context"
	"errors"
	"github.com/ebb-am/ebb/am/amconf"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// killWorld records the workers the loop asks it to kill.
type killWorld struct {
	nopWorld
	mu     sync.Mutex
	killed []string
}

func (w *killWorld) KillWorker(_ time.Time, id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.killed = append(w.killed, id)
}

func (w *killWorld) kills() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.killed...)
}

var _ WorkerKiller = (*killWorld)(nil)

// fakeWorker connects to the AM as worker id and registers.
func fakeWorker(t *testing.T, ctx context.Context, addr, id string) ebbpb.Worker_ConnectClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	stream, err := ebbpb.NewWorkerClient(conn).Connect(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer s"))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Register{Register: &ebbpb.Register{
		WorkerId: id, Group: "g", Node: "node-" + id, MemoryMb: 512, DataAddress: "127.0.0.1:1"}}}); err != nil {
		t.Fatal(err)
	}
	if m, err := stream.Recv(); err != nil || m.GetRegistered() == nil {
		t.Fatalf("worker %s: register answered %v, %v", id, m, err)
	}
	return stream
}

// nextRun is the next RunAttempt on a worker's stream.
func nextRun(t *testing.T, stream ebbpb.Worker_ConnectClient) *ebbpb.RunAttempt {
	t.Helper()
	for {
		m, err := stream.Recv()
		if err != nil {
			t.Fatalf("stream ended before a RunAttempt: %v", err)
		}
		if r := m.GetRun(); r != nil {
			return r
		}
	}
}

// Issue 24, the AM's side: a worker registers, takes an attempt and falls
// silent with its stream open (wedged). After the worker timeout the AM
// gives up on it: it is told to stop, its stream ends, the world is asked
// to kill it, and its attempt runs on another worker; the DAG succeeds
// with no failed attempt, although the task timeout (shorter) passed first.
func TestSilentWorkerIsStoppedAndItsAttemptRunsElsewhere(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	a, err := New(Options{Listen: "127.0.0.1:0", Secret: "s", Log: log, Tick: 20 * time.Millisecond,
		Core: silentOptions()})
	if err != nil {
		t.Fatal(err)
	}
	world := &killWorld{}
	a.SetWorld(world)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the AM ended with %v", err)
		}
	}()
	id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(`
name: one
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`)})
	if err != nil {
		t.Fatal(err)
	}

	w1 := fakeWorker(t, ctx, a.Addr(), "w1")
	first := nextRun(t, w1) // and w1 says nothing more
	w2 := fakeWorker(t, ctx, a.Addr(), "w2")
	go func() { // w2 is alive: it heartbeats until the test ends
		for ctx.Err() == nil {
			if w2.Send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Heartbeat{Heartbeat: &ebbpb.Heartbeat{}}}) != nil {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond): // the heartbeat interval
			}
		}
	}()

	again := nextRun(t, w2)
	if again.GetVertex() != first.GetVertex() || again.GetTaskIndex() != first.GetTaskIndex() || again.GetAttemptId() == first.GetAttemptId() {
		t.Fatalf("w2 got %s (task %s/%d), want a new attempt of %s's task", again.GetAttemptId(), again.GetVertex(), again.GetTaskIndex(), first.GetAttemptId())
	}
	var stop *ebbpb.Stop
	for {
		m, err := w1.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("w1's stream ended with %v, want EOF after a Stop", err)
			}
			break
		}
		if s := m.GetStop(); s != nil {
			stop = s
		}
	}
	if stop == nil || stop.GetGraceful() {
		t.Fatalf("w1 was told %v before its stream ended, want a Stop that is not graceful", stop)
	}
	if err := w2.Send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Attempt{Attempt: &ebbpb.AttemptUpdate{
		AttemptId: again.GetAttemptId(), State: ebbpb.AttemptState_ATTEMPT_SUCCEEDED, Progress: 1}}}); err != nil {
		t.Fatal(err)
	}
	s, err := a.WaitDAG(ctx, id)
	if err != nil || s.State != core.DAGSucceeded || s.Failed != 0 {
		t.Fatalf("the DAG ended %s with %d failed attempts (%v): %s; want SUCCEEDED with 0", s.State, s.Failed, err, s.Diagnostics)
	}
	if k := world.kills(); len(k) != 1 || k[0] != "w1" {
		t.Errorf("the world was asked to kill %v, want [w1]", k)
	}
}

// silentOptions: a worker is lost after 2 s of silence, an attempt after
// 1 s, one failure fails the DAG, and no worker goes idle.
func silentOptions() core.CoreOptions {
	o := amconf.Defaults()
	o.WorkerTimeout, o.TaskTimeout, o.MaxFailedAttempts, o.IdleTimeout = 2*time.Second, time.Second, 1, time.Hour
	return o
}
