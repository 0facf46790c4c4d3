package am

import (
	"bytes"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// connectWorker registers worker id over a stream of its own and returns
// the stream after the AM's Registered.
func connectWorker(t *testing.T, a *testAM, id string) ebbpb.Worker_ConnectClient {
	t.Helper()
	conn, err := grpc.NewClient(a.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	stream, err := ebbpb.NewWorkerClient(conn).Connect(metadata.AppendToOutgoingContext(a.ctx, "authorization", "Bearer s"))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Register{Register: &ebbpb.Register{
		WorkerId: id, Group: "g", Node: "n1", MemoryMb: 1024, DataAddress: "127.0.0.1:1"}}}); err != nil {
		t.Fatal(err)
	}
	m, err := stream.Recv()
	if err != nil || m.GetRegistered() == nil {
		t.Fatalf("worker %s: %v, %v instead of Registered", id, m, err)
	}
	return stream
}

func nextCredentials(t *testing.T, id string, s ebbpb.Worker_ConnectClient) []byte {
	t.Helper()
	// Other messages (the DAG's attempt to run) may come first.
	for {
		m, err := s.Recv()
		if err != nil {
			t.Fatalf("worker %s: %v before any Credentials", id, err)
		}
		if c := m.GetCredentials(); c != nil {
			return c.GetTokens()
		}
	}
}

// Fresh tokens reach every connected worker at once, and a worker that
// connects afterwards right after its Registered.
func TestWorkerCredentialsToConnectedAndLaterWorkers(t *testing.T) {
	a := runTestAM(t, Options{})
	if _, err := a.Submit(a.ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(`
name: holds
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 256}]
`)}); err != nil {
		t.Fatal(err)
	}
	w1 := connectWorker(t, a, "w1")
	fresh := []byte("fresh token blob")
	if n := a.SetWorkerCredentials(fresh); n != 1 {
		t.Errorf("queued for %d workers, want 1", n)
	}
	if got := nextCredentials(t, "w1", w1); !bytes.Equal(got, fresh) {
		t.Errorf("w1 got %q", got)
	}
	w2 := connectWorker(t, a, "w2")
	if got := nextCredentials(t, "w2", w2); !bytes.Equal(got, fresh) {
		t.Errorf("w2 got %q", got)
	}
}
