package am

import (
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// An AM that shuts down tells each connected worker to stop before its
// stream ends, so a worker of a finished application exits saying it was
// told to, not that the stream broke.
func TestShutdownSendsStopBeforeClosingStreams(t *testing.T) {
	a := runTestAM(t, Options{})
	ctx := a.ctx
	// A DAG defines the worker's group; nopWorld starts no worker of its own.
	if _, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(`
name: holds
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 256}]
`)}); err != nil {
		t.Fatal(err)
	}

	conn, err := grpc.NewClient(a.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	stream, err := ebbpb.NewWorkerClient(conn).Connect(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer s"))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Register{Register: &ebbpb.Register{
		WorkerId: "w1", Group: "g", Node: "n1", MemoryMb: 1024, DataAddress: "127.0.0.1:1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil { // the AM's answer to Register
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- a.stop() }()
	var stop *ebbpb.Stop
	for {
		m, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) && stop == nil {
				t.Fatalf("stream ended with %v before any Stop", err)
			}
			break
		}
		if s := m.GetStop(); s != nil {
			stop = s
		}
	}
	if stop == nil {
		t.Fatal("the stream ended without a Stop")
	}
	if stop.GetReason() == "" {
		t.Error("the Stop gives no reason")
	}
	if err := <-stopped; err != nil {
		t.Fatalf("the AM ended with %v", err)
	}
}
