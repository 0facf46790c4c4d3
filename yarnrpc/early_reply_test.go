package yarnrpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// A server may answer a call as soon as the request is on the wire, before
// the Write that sent it has even returned in the client. The client must
// therefore have registered the call id before writing; if it registered
// after, the read loop would find no caller for the answer and drop it,
// and the call would wait out its deadline.
//
// eagerConn makes that worst case certain rather than likely: it answers
// each call inside the client's Write, and that Write does not return until
// the client's read loop has taken the whole answer and asked for more
// bytes, i.e. has already routed it to its caller or dropped it.
type eagerConn struct {
	mu       sync.Mutex
	cond     *sync.Cond
	in       []byte // client bytes not yet parsed into requests
	preamble bool   // the 7-byte preamble has been read off in
	out      []byte // answer bytes the client has not read yet
	idle     bool   // a Read is waiting with out empty
	closed   bool
	err      error // the client sent something eagerConn cannot parse
}

func newEagerConn() *eagerConn {
	c := &eagerConn{}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Write queues an answer for every complete call in the bytes so far and
// blocks until the read loop has consumed the answers.
func (c *eagerConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	c.in = append(c.in, p...)
	answered := c.answer()
	if c.err != nil {
		return 0, c.err
	}
	if !answered {
		return len(p), nil
	}
	c.idle = false // a Read that was waiting has not seen the answer yet
	c.cond.Broadcast()
	for (len(c.out) > 0 || !c.idle) && !c.closed {
		c.cond.Wait()
	}
	return len(p), nil
}

// answer parses the complete packets in c.in and appends a SUCCESS for
// each call (ids >= 0; the connection context gets no answer). The body is
// the call id, so a test can tell whose answer a caller got.
func (c *eagerConn) answer() bool {
	if !c.preamble {
		if len(c.in) < 7 {
			return false
		}
		if _, err := ReadPreamble(bytes.NewReader(c.in[:7])); err != nil {
			c.err = err
			return false
		}
		c.in, c.preamble = c.in[7:], true
	}
	answered := false
	for len(c.in) >= 4 {
		end := 4 + int(binary.BigEndian.Uint32(c.in))
		if len(c.in) < end {
			break
		}
		h, _, err := ReadRequest(bytes.NewReader(c.in[:end]))
		if err != nil {
			c.err = err
			return false
		}
		c.in = c.in[end:]
		if h.GetCallId() < 0 {
			continue
		}
		pkt, err := EncodePacket(okHeader(h.GetCallId()), metricsReply(h.GetCallId()))
		if err != nil {
			c.err = err
			return false
		}
		c.out = append(c.out, pkt...)
		answered = true
	}
	return answered
}

func (c *eagerConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.out) == 0 && !c.closed {
		// The read loop reads again only after it has dealt with the
		// previous answer: that is what the blocked Write waits for.
		c.idle = true
		c.cond.Broadcast()
		c.cond.Wait()
	}
	if c.closed {
		return 0, io.EOF
	}
	c.idle = false
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

func (c *eagerConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.cond.Broadcast()
	return nil
}

func (c *eagerConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *eagerConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *eagerConn) SetDeadline(time.Time) error      { return nil }
func (c *eagerConn) SetReadDeadline(time.Time) error  { return nil }
func (c *eagerConn) SetWriteDeadline(time.Time) error { return nil }

// TestAnswerBeforeWriteReturns: every call gets its answer even when the
// answer has been read and routed before the Write that sent the request
// returns. It fails (each call waits out its deadline) if conn.call
// registers the call id only after writing.
func TestAnswerBeforeWriteReturns(t *testing.T) {
	ec := newEagerConn()
	dial := func(context.Context, string, string) (net.Conn, error) { return ec, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cn, err := dialConn(ctx, dial, "eager", connAuth{User: "u", protocol: "p", clientID: make([]byte, 16)})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	for i := range int32(5) {
		resp := &hadooppb.GetClusterMetricsResponseProto{}
		if err := cn.call(ctx, "getClusterMetrics", 0, &hadooppb.GetClusterMetricsRequestProto{}, resp, time.Time{}); err != nil {
			t.Fatalf("call %d: %v (its answer came before Write returned and was dropped?)", i, err)
		}
		if got := resp.GetClusterMetrics().GetNumNodeManagers(); got != i {
			t.Fatalf("call %d got the answer to call %d", i, got)
		}
	}
}
