package hdfsfs

import (
	"context"
	"net"
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
		if err != nil {
			return nil, err
		}
		return &deadlineConn{Conn: c, call: call}, nil
	}
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
