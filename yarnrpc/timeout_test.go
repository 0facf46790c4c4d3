package yarnrpc

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// silentServer accepts connections and reads whatever comes, never
// answering: an RM that is up but wedged.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				_, _ = io.Copy(io.Discard, c) // until the client gives up
				_ = c.Close()
			}()
		}
	}()
	return l.Addr().String()
}

// A call to a server that never answers fails with a TimeoutError naming
// the address and ipc.client.rpc-timeout.ms, and is not retried.
func TestCallTimeoutNamesAddressAndKey(t *testing.T) {
	addr := silentServer(t)
	c := NewApplicationClient(addr, "me", WithTimeouts(time.Second, 200*time.Millisecond), WithRetry(5, time.Millisecond, time.Millisecond))
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard, not the subject
	defer cancel()
	_, err := c.GetClusterMetrics(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a *TimeoutError", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the guard ran out: the call timeout did not end the call")
	}
	for _, want := range []string{addr, "ipc.client.rpc-timeout.ms", "call "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
}

// A SASL handshake the server never answers fails with a TimeoutError
// naming ipc.client.connect.timeout.
func TestConnectTimeoutNamesAddressAndKey(t *testing.T) {
	addr := silentServer(t)
	c := NewAMRMClient(addr, Token{Identifier: []byte("id"), Password: []byte("pw"), Kind: "YARN_AM_RM_TOKEN", Service: addr},
		WithTimeouts(200*time.Millisecond, time.Minute), WithRetry(5, time.Millisecond, time.Millisecond))
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard, not the subject
	defer cancel()
	_, err := c.RegisterApplicationMaster(ctx, "host", 0, "")
	var te *TimeoutError
	if !errors.As(err, &te) || te.Key != "ipc.client.connect.timeout" || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v, want a *TimeoutError naming %s and ipc.client.connect.timeout", err, addr)
	}
	if ctx.Err() != nil {
		t.Fatal("the guard ran out: the connect timeout did not end the call")
	}
}
