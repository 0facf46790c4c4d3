package hdfsfs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// colinmarc/hdfs sets no deadline on a NameNode's connection: a NameNode
// that accepts a call and never answers (hung, or a restart that left the
// socket half-open) would hold the caller for ever. Every NameNode
// connection ebb makes therefore has a connect timeout and a deadline on
// each read and write, ebb's defaults for Hadoop's ipc.client.connect.timeout
// and ipc.client.rpc-timeout.ms (conf.RPCTimeouts); a call that runs into
// one fails with a timeout, which Retry counts as the NameNode not
// answering. The NameNode protocol is one request, then its answer, on
// the caller's goroutine, so a deadline never cuts an idle connection.
// DataNode streams are left alone: a write pipeline's acks are read in the
// background and a long-open file may rightly be idle for minutes.
const (
	NamenodeConnectTimeout = 20 * time.Second
	NamenodeCallTimeout    = 60 * time.Second
)

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// namenodeDialer wraps dial (nil: a plain TCP dial) with the timeouts.
func namenodeDialer(dial dialFunc, connect, call time.Duration) dialFunc {
	if dial == nil {
		dial = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, connect)
		defer cancel()
		c, err := dial(ctx, network, addr)
		var ne net.Error
		if err != nil && (errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) {
			return nil, &ConnectTimeoutError{Addr: addr, After: connect, Err: err}
		}
		if err != nil {
			return nil, err
		}
		return &deadlineConn{Conn: c, call: call}, nil
	}
}

// ConnectTimeoutError: a NameNode that took no connection within the
// connect timeout (a host that drops packets, not one that refuses). A
// gateway tries such a connect again at once, as Hadoop's IPC client
// does (ipc.client.connect.max.retries.on.timeouts).
type ConnectTimeoutError struct {
	Addr  string
	After time.Duration
	Err   error
}

// connectTimeoutMark is in every ConnectTimeoutError's text:
// colinmarc/hdfs passes a dial's error on as text ("no available
// namenodes: %s"), so the text is what is left of the type.
const connectTimeoutMark = "no connection within"

func (e *ConnectTimeoutError) Error() string {
	return fmt.Sprintf("NameNode %s: %s %s (ipc.client.connect.timeout): %v", e.Addr, connectTimeoutMark, e.After, e.Err)
}

func (e *ConnectTimeoutError) Unwrap() error { return e.Err }

// connectTimedOut says whether err is, or tells of, a ConnectTimeoutError.
func connectTimedOut(err error) bool {
	var ce *ConnectTimeoutError
	return errors.As(err, &ce) || err != nil && strings.Contains(err.Error(), connectTimeoutMark)
}

// NamenodeDialer is the dialer of every NameNode connection (for clients
// made outside this package, the worker's).
func NamenodeDialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return namenodeDialer(nil, NamenodeConnectTimeout, NamenodeCallTimeout)
}

// deadlineConn gives each read and write its own deadline.
type deadlineConn struct {
	net.Conn
	call time.Duration
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	_ = c.SetReadDeadline(time.Now().Add(c.call)) // a conn that cannot take one fails the read itself
	return c.Conn.Read(b)
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.call))
	return c.Conn.Write(b)
}
