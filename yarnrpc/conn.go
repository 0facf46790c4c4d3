package yarnrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// conn is one authenticated Hadoop RPC connection. Many calls may be in
// flight: each gets the next call id and a channel; a single reader
// goroutine routes responses by call id, in whatever order they arrive.
type conn struct {
	nc       net.Conn
	protocol string
	clientID []byte

	wmu sync.Mutex // one packet at a time on the socket

	mu       sync.Mutex
	nextID   int32
	pending  map[int32]chan *Response
	err      error // why the connection ended; set once
	lastUsed time.Time
	done     chan struct{}
}

// connAuth says how to authenticate a connection: SIMPLE (User set, no
// token), TOKEN (Token set) or KERBEROS (Kerberos set, no token).
type connAuth struct {
	User     string
	Token    *Token
	Kerberos *Kerberos
	addr     string
	cnonce   func() (string, error)
	protocol string
	clientID []byte
}

// callError is a failure of the transport around one call. sent says
// whether the request may have reached the server: if not, a retry is
// always safe.
type callError struct {
	err  error
	sent bool
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

// dialConn connects, authenticates and sends the connection context. ctx
// bounds the whole handshake.
func dialConn(ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), addr string, a connAuth) (*conn, error) {
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	// Closing the socket is the only way to interrupt a blocked handshake
	// read when ctx ends.
	stop := context.AfterFunc(ctx, func() {
		_ = nc.Close() // the interrupted handshake reports the failure
	})
	a.addr = addr
	err = handshake(ctx, nc, a)
	if !stop() || err != nil {
		_ = nc.Close() // abandoned: the handshake error (or ctx's) is the one to report
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("connect %s: %w", addr, err)
	}
	c := &conn{
		nc:       nc,
		protocol: a.protocol,
		clientID: a.clientID,
		nextID:   0,
		pending:  map[int32]chan *Response{},
		done:     make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// handshake writes the preamble, runs SASL for TOKEN or KERBEROS, and
// sends the connection context (call id -3).
func handshake(ctx context.Context, nc net.Conn, a connAuth) error {
	if err := WritePreamble(nc, a.Token != nil || a.Kerberos != nil); err != nil {
		return err
	}
	user := &hadooppb.UserInformationProto{}
	switch {
	case a.Token != nil:
		if err := saslHandshake(nc, *a.Token, a.cnonce); err != nil {
			return err
		}
		// With a token the token names the user; userInfo stays empty.
	case a.Kerberos != nil:
		if err := kerberosHandshake(ctx, nc, a.addr, a.Kerberos); err != nil {
			return err
		}
		// The server compares the effective user with the authenticated
		// principal: the same name means no impersonation.
		user.EffectiveUser = proto.String(a.Kerberos.Login.Principal())
	default:
		user.EffectiveUser = proto.String(a.User)
	}
	return WritePacket(nc, requestHeader(callIDConnectionContext, a.clientID, -1),
		&hadooppb.IpcConnectionContextProto{UserInfo: user, Protocol: proto.String(a.protocol)})
}

func (c *conn) readLoop() {
	for {
		r, err := ReadResponse(c.nc)
		if err != nil {
			c.shutdown(fmt.Errorf("connection lost: %w", err))
			return
		}
		id := r.CallID()
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- r // buffered: never blocks
		}
		if r.Header.GetStatus() == hadooppb.RpcResponseHeaderProto_FATAL {
			c.shutdown(&RemoteError{Class: r.Header.GetExceptionClassName(), Message: r.Header.GetErrorMsg(), Fatal: true})
			return
		}
	}
}

// shutdown ends the connection once; every waiting call sees err.
func (c *conn) shutdown(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = nil
	close(c.done)
	c.mu.Unlock()
	_ = c.nc.Close() // err, recorded above, already says why the connection ended
	for _, ch := range pending {
		close(ch)
	}
}

// broken reports why the connection is unusable, or nil.
func (c *conn) broken() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *conn) idleSince() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastUsed
}

// call sends one request and waits for its response, ctx, or the end of
// the connection.
func (c *conn) call(ctx context.Context, method string, retry int32, req, resp proto.Message, now time.Time) error {
	ch := make(chan *Response, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return &callError{err: err, sent: false}
	}
	id := c.nextID
	c.nextID++
	if c.nextID < 0 { // wrapped: Hadoop's ids are non-negative for calls
		c.nextID = 0
	}
	// Registered before the request is written: the server may answer, and
	// the read loop route the answer, before Write returns here; an id not
	// yet in pending would have its answer dropped
	// (TestAnswerBeforeWriteReturns).
	c.pending[id] = ch
	c.lastUsed = now
	c.mu.Unlock()

	pkt, err := EncodePacket(requestHeader(id, c.clientID, retry), methodHeader(c.protocol, method), req)
	if err != nil {
		c.forget(id)
		return err
	}
	c.wmu.Lock()
	dl, _ := ctx.Deadline() // the zero time, no deadline, when ctx has none
	if err := c.nc.SetWriteDeadline(dl); err != nil {
		c.wmu.Unlock()
		if why := c.serverReason(); why != nil {
			c.forget(id)
			return &callError{err: why, sent: false}
		}
		// A socket that refuses a deadline is closed or broken: the write
		// would fail as well, and nothing of this call went out.
		err = fmt.Errorf("write %s: set deadline: %w", method, err)
		c.shutdown(err)
		return &callError{err: err, sent: false}
	}
	n, err := c.nc.Write(pkt)
	c.wmu.Unlock()
	if err != nil {
		if why := c.serverReason(); why != nil {
			c.forget(id)
			return &callError{err: why, sent: n == len(pkt)}
		}
	}
	if err != nil {
		c.shutdown(fmt.Errorf("write %s: %w", method, err))
		// A short write cannot have delivered a whole packet.
		return &callError{err: fmt.Errorf("write %s: %w", method, err), sent: n == len(pkt)}
	}

	select {
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			return &callError{err: fmt.Errorf("%s: %w", method, c.broken()), sent: true}
		}
		switch r.Header.GetStatus() {
		case hadooppb.RpcResponseHeaderProto_SUCCESS:
			if err := r.Decode(resp); err != nil {
				return fmt.Errorf("%s: %w", method, err)
			}
			return nil
		default:
			return &RemoteError{
				Class:   r.Header.GetExceptionClassName(),
				Message: r.Header.GetErrorMsg(),
				Method:  method,
				Fatal:   r.Header.GetStatus() == hadooppb.RpcResponseHeaderProto_FATAL,
			}
		}
	}
}

// serverReason is why the server ended the connection, when it said so: a
// write that fails because the server closed the socket after a FATAL
// answer (such as "SIMPLE authentication is not enabled") reports that
// answer, not "broken pipe". The answer may still be on its way through
// the read loop, so this waits for the loop to end, briefly.
func (c *conn) serverReason() error {
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	var re *RemoteError
	if why := c.broken(); errors.As(why, &re) {
		return why
	}
	return nil
}

func (c *conn) forget(id int32) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *conn) close() { c.shutdown(errors.New("closed by client")) }
