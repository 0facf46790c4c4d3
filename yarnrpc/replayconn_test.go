package yarnrpc

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// replayConn plays a recorded server and checks every client write against
// the recorded client bytes.
//
// A real server cannot answer a request it has not received, so each
// recorded server packet is released to Read only once the client has
// written the whole request it answers. Handing the bytes out earlier would
// let the client's read loop see an answer for a call id that the client
// has not even allocated yet, which no server can produce, and the replay
// would fail for a reason that is not the client's. Once the server's
// bytes run out, Read blocks until Close (a real server would wait for the
// next call).
type replayConn struct {
	mu       sync.Mutex
	cond     *sync.Cond // signalled on every write, mismatch and Close
	client   []byte     // recorded client bytes
	written  int        // how many of them the client has written
	server   []byte     // recorded server bytes
	read     int        // how many of them Read has handed out
	released int        // how many of them the client's writes have unlocked
	gates    []gate     // ascending in both fields; popped as they open
	mismatch error
	closed   bool
}

// gate: once the client has written afterClient bytes, the server bytes up
// to releaseServer may be read.
type gate struct{ afterClient, releaseServer int }

func newReplayConn(t *testing.T, client, server []byte) *replayConn {
	t.Helper()
	gates, err := replayGates(client, server)
	if err != nil {
		t.Fatalf("recording cannot be replayed: %v", err)
	}
	r := &replayConn{client: client, server: server, gates: gates}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// replayGates pairs every server packet with the client packet it answers:
// the next one not yet answered that carries the same call id (SASL sends
// several packets with id -33, answered in turn). Server packets keep their
// recorded order, so a packet never opens before the one ahead of it.
func replayGates(client, server []byte) ([]gate, error) {
	cr := bytes.NewReader(client)
	if _, err := ReadPreamble(cr); err != nil {
		return nil, fmt.Errorf("client bytes: %w", err)
	}
	ends := map[int32][]int{} // call id -> end offsets of its requests, in order
	for cr.Len() > 0 {
		h, _, err := ReadRequest(cr)
		if err != nil {
			return nil, fmt.Errorf("client bytes at %d: %w", len(client)-cr.Len(), err)
		}
		id := h.GetCallId()
		ends[id] = append(ends[id], len(client)-cr.Len())
	}
	var gates []gate
	sr := bytes.NewReader(server)
	after := 0
	for sr.Len() > 0 {
		r, err := ReadResponse(sr)
		if err != nil {
			return nil, fmt.Errorf("server bytes at %d: %w", len(server)-sr.Len(), err)
		}
		id := r.CallID()
		if len(ends[id]) == 0 {
			return nil, fmt.Errorf("server packet ending at %d answers call id %d, which has no request left in the client bytes", len(server)-sr.Len(), id)
		}
		after = max(after, ends[id][0])
		ends[id] = ends[id][1:]
		gates = append(gates, gate{afterClient: after, releaseServer: len(server) - sr.Len()})
	}
	return gates, nil
}

func (r *replayConn) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.read == r.released && r.mismatch == nil && !r.closed {
		r.cond.Wait()
	}
	switch {
	case r.closed:
		return 0, io.EOF
	case r.mismatch != nil:
		// The recording has nothing to say to a client that went off
		// script; blocking would only turn the mismatch into a timeout.
		return 0, r.mismatch
	}
	n := copy(p, r.server[r.read:r.released])
	r.read += n
	return n, nil
}

func (r *replayConn) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mismatch != nil {
		return 0, r.mismatch
	}
	want := r.client[r.written:]
	n := len(p)
	if n > len(want) || !bytes.Equal(p, want[:n]) {
		k := min(n, len(want))
		r.mismatch = fmt.Errorf("client wrote % x, recording has % x", p, want[:k])
		r.cond.Broadcast()
		return 0, r.mismatch
	}
	r.written += n
	for len(r.gates) > 0 && r.gates[0].afterClient <= r.written {
		r.released = r.gates[0].releaseServer
		r.gates = r.gates[1:]
	}
	r.cond.Broadcast()
	return n, nil
}

func (r *replayConn) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.cond.Broadcast()
	return nil
}

// finish reports a mismatch or recorded client bytes never written.
func (r *replayConn) finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mismatch != nil {
		return r.mismatch
	}
	if left := len(r.client) - r.written; left > 0 {
		return fmt.Errorf("client left %d recorded bytes unsaid", left)
	}
	return nil
}

func (r *replayConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (r *replayConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (r *replayConn) SetDeadline(time.Time) error      { return nil }
func (r *replayConn) SetReadDeadline(time.Time) error  { return nil }
func (r *replayConn) SetWriteDeadline(time.Time) error { return nil }
