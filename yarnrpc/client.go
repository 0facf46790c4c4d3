package yarnrpc

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// Options tune a Client. The zero value of each field means its default.
type Options struct {
	// Dial opens the TCP connection (default: a net.Dialer).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxAttempts bounds the tries of one call, the first included (default 5).
	MaxAttempts int
	// BackoffBase and BackoffMax shape the wait between tries: base, 2·base,
	// 4·base, … capped at max (defaults 200ms and 5s).
	BackoffBase, BackoffMax time.Duration
	// IdleTimeout closes a connection unused for this long before the next
	// call, rather than finding out mid-call that the server dropped it
	// (default 10s, Hadoop's ipc.client.connection.maxidletime).
	IdleTimeout time.Duration
	// ConnectTimeout bounds opening a connection, handshake included
	// (default 20s, Hadoop's ipc.client.connect.timeout).
	ConnectTimeout time.Duration
	// CallTimeout bounds each try of a call, from sending the request to
	// its answer (default 60s; Hadoop's ipc.client.rpc-timeout.ms). A
	// server that accepts and never answers fails the call with a
	// *TimeoutError instead of hanging it.
	CallTimeout time.Duration
	// Now is the clock (default time.Now); tests pass their own.
	Now func() time.Time

	// cnonce makes the DIGEST-MD5 client nonce deterministic (recorded
	// exchanges); production uses newCnonce.
	cnonce func() (string, error)
	// kerberos, when set, authenticates connections without a token with
	// Kerberos instead of SIMPLE (WithKerberos).
	kerberos *Kerberos
}

// Option changes Options.
type Option func(*Options)

// WithDialer sets the function that opens connections.
func WithDialer(d func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(o *Options) { o.Dial = d }
}

// WithRetry sets the number of attempts and the backoff between them.
func WithRetry(attempts int, base, max time.Duration) Option {
	return func(o *Options) { o.MaxAttempts, o.BackoffBase, o.BackoffMax = attempts, base, max }
}

// WithIdleTimeout sets how long an unused connection is kept.
func WithIdleTimeout(d time.Duration) Option { return func(o *Options) { o.IdleTimeout = d } }

// WithTimeouts sets the connect and call timeouts (0 keeps a default).
func WithTimeouts(connect, call time.Duration) Option {
	return func(o *Options) { o.ConnectTimeout, o.CallTimeout = connect, call }
}

// Default timeouts, as Hadoop's ipc.client.connect.timeout and a call
// timeout short enough that a hung server is reported within a minute.
const (
	DefaultConnectTimeout = 20 * time.Second
	DefaultCallTimeout    = 60 * time.Second
)

func (o *Options) fill() {
	if o.Dial == nil {
		var d net.Dialer
		o.Dial = d.DialContext
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 200 * time.Millisecond
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = 5 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 10 * time.Second
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.cnonce == nil {
		o.cnonce = newCnonce
	}
}

// backoff is the wait before try number attempt+1 (attempt counts from 0):
// base·2^attempt, capped at max.
func backoff(attempt int, base, max time.Duration) time.Duration {
	d := base
	for i := 0; i < attempt; i++ {
		d *= 2
		if d >= max || d <= 0 {
			return max
		}
	}
	if d > max {
		return max
	}
	return d
}

// Retry policy of a method: whether a call whose request may have reached
// the server can be sent again.
type retryPolicy int

const (
	// retrySafe: the method is idempotent (or the server deduplicates it,
	// like allocate by response_id), so any transport failure may retry.
	retrySafe retryPolicy = iota
	// retryUnsent: only retry when the request never left this process.
	retryUnsent
)

// Client is a Hadoop RPC client for one protocol at one address. It dials
// lazily, reconnects after failures, and is safe for concurrent use.
type Client struct {
	addr     string
	protocol string
	user     string
	opts     Options
	clientID []byte

	mu     sync.Mutex
	token  *Token
	conn   *conn
	closed bool
}

func newClient(addr, protocol, user string, token *Token, opts []Option) *Client {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	o.fill()
	id := make([]byte, 16)
	rand.Read(id) // crypto/rand.Read never fails on supported platforms
	return &Client{addr: addr, protocol: protocol, user: user, token: token, opts: o, clientID: id}
}

// Addr returns the server address.
func (c *Client) Addr() string { return c.addr }

// SetToken replaces the token used by connections opened from now on (an
// AMRMToken rolled over by the RM). The open connection keeps working: the
// server authenticated it already.
func (c *Client) SetToken(t Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.token = &t
}

// Close ends the connection; later calls fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn != nil {
		c.conn.close()
		c.conn = nil
	}
	return nil
}

// getConn returns a live connection, dialing a new one if needed.
func (c *Client) getConn(ctx context.Context) (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.conn != nil {
		if c.conn.broken() == nil && c.opts.Now().Sub(c.conn.idleSince()) < c.opts.IdleTimeout {
			return c.conn, nil
		}
		c.conn.close()
		c.conn = nil
	}
	a := connAuth{User: c.user, protocol: c.protocol, clientID: c.clientID, cnonce: c.opts.cnonce}
	if c.token != nil {
		t := *c.token
		a.Token = &t
	} else {
		a.Kerberos = c.opts.kerberos
	}
	// Holding mu while dialing makes concurrent callers share one dial
	// instead of racing to open several connections.
	dctx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	cn, err := dialConn(dctx, c.opts.Dial, c.addr, a)
	if err != nil {
		if ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
			return nil, &TimeoutError{Addr: c.addr, Op: "connect", After: c.opts.ConnectTimeout, Key: "ipc.client.connect.timeout", Err: err}
		}
		return nil, err
	}
	cn.lastUsed = c.opts.Now() // a fresh connection is not idle
	c.conn = cn
	return cn, nil
}

// call runs one method with retries. Remote exceptions are final except
// those the server marks retriable; transport failures retry when policy
// allows.
func (c *Client) call(ctx context.Context, method string, policy retryPolicy, req, resp proto.Message) error {
	var last error
	for attempt := 0; attempt < c.opts.MaxAttempts; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(backoff(attempt-1, c.opts.BackoffBase, c.opts.BackoffMax))
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("%s: %w (last error: %w)", method, ctx.Err(), last)
			case <-t.C:
			}
		}
		cn, err := c.getConn(ctx)
		if err == nil {
			err = c.callOnce(ctx, cn, method, int32(attempt), req, resp)
			if err == nil {
				return nil
			}
		} else if errors.Is(err, ErrClosed) {
			return err
		}
		if ctx.Err() != nil || !retriable(err, policy) {
			return err
		}
		last = err
	}
	return fmt.Errorf("%s: giving up after %d attempts: %w", method, c.opts.MaxAttempts, last)
}

// callOnce is one try of a call, bounded by CallTimeout.
func (c *Client) callOnce(ctx context.Context, cn *conn, method string, attempt int32, req, resp proto.Message) error {
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	err := cn.call(cctx, method, attempt, req, resp, c.opts.Now())
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		// The connection may be wedged: the next call dials afresh.
		c.dropConn(cn)
		return &TimeoutError{Addr: c.addr, Op: "call " + method, After: c.opts.CallTimeout, Key: "ipc.client.rpc-timeout.ms", Err: err}
	}
	return err
}

// dropConn forgets cn if it is still the client's connection.
func (c *Client) dropConn(cn *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == cn {
		c.conn.close()
		c.conn = nil
	}
}

// retriable decides whether err allows another try under policy.
func retriable(err error, policy retryPolicy) bool {
	var te *TimeoutError
	if errors.As(err, &te) {
		return false // a server that did not answer in time gets no second wait
	}
	var re *RemoteError
	if errors.As(err, &re) {
		return re.Retriable() // the server did not run the call
	}
	if errors.Is(err, ErrSASL) || errors.Is(err, ErrProtocol) {
		return false // the same bytes will fail the same way
	}
	var ce *callError
	if errors.As(err, &ce) {
		return !ce.sent || policy == retrySafe
	}
	// Dial and handshake failures: nothing was sent.
	return true
}
