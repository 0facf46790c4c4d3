package yarnrpc

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// noDeadlineConn refuses write deadlines, as a closed socket does.
type noDeadlineConn struct{ *eagerConn }

var errNoDeadline = errors.New("deadline refused")

func (noDeadlineConn) SetWriteDeadline(time.Time) error { return errNoDeadline }

// TestWriteDeadlineRefused: when the socket refuses the write deadline the
// call fails without writing, says so (sent=false, so even a non-idempotent
// call may be retried), and the connection is given up.
func TestWriteDeadlineRefused(t *testing.T) {
	ec := newEagerConn()
	dial := func(context.Context, string, string) (net.Conn, error) { return noDeadlineConn{ec}, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cn, err := dialConn(ctx, dial, "x", connAuth{User: "u", protocol: "p", clientID: make([]byte, 16)})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	err = cn.call(ctx, "getClusterMetrics", 0, &hadooppb.GetClusterMetricsRequestProto{}, &hadooppb.GetClusterMetricsResponseProto{}, time.Time{})
	var ce *callError
	if !errors.As(err, &ce) || ce.sent || !errors.Is(err, errNoDeadline) {
		t.Fatalf("err = %v, want an unsent callError wrapping the deadline failure", err)
	}
	if !retriable(err, retryUnsent) {
		t.Error("an unsent call must be retriable under retryUnsent")
	}
	if cn.broken() == nil {
		t.Error("connection still in use after its socket refused a deadline")
	}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if len(ec.out) != 0 || len(ec.in) != 0 {
		t.Errorf("the call reached the server (%d answer bytes, %d unparsed)", len(ec.out), len(ec.in))
	}
}
