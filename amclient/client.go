package amclient

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Target is one AM attempt's client address and the secret it takes.
type Target struct {
	Addr, Secret string
	// Attempt is the application attempt (0: not on YARN, or unknown).
	Attempt int32
}

// Options say how a Client follows its application.
type Options struct {
	// Locate finds the next AM attempt when the current one stops
	// answering; nil when the AM was named directly (there is nowhere
	// else to look) and a call no AM answered fails.
	Locate Locator
}

// Client talks to a running AM. Its calls may be made from several
// goroutines; a call that moves to the next attempt moves them all.
type Client struct {
	o  Options
	mu sync.Mutex
	// conn, pb, attempt: the AM attempt talked to now.
	conn    *grpc.ClientConn
	pb      ebbpb.ClientClient
	attempt int32
}

// Dial makes a client of the AM at t. No call goes out until the first
// request; close the client with Close.
func Dial(t Target, o Options) (*Client, error) {
	c := &Client{o: o}
	if err := c.redial(t); err != nil {
		return nil, err
	}
	return c, nil
}

// Close closes the connection to the current AM attempt.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn.Close()
}

// Attempt is the AM attempt the client talks to now: a caller that sees
// it change after a call knows another attempt took over.
func (c *Client) Attempt() int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attempt
}

func (c *Client) redial(t Target) error {
	conn, err := grpc.NewClient(t.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(bearer(t.Secret)))
	if err != nil {
		return err
	}
	c.mu.Lock()
	old := c.conn
	c.conn, c.pb, c.attempt = conn, ebbpb.NewClientClient(conn), t.Attempt
	c.mu.Unlock()
	if old != nil {
		_ = old.Close() // the attempt that went away: nothing to read from it
	}
	return nil
}

func (c *Client) current() (ebbpb.ClientClient, int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pb, c.attempt
}

// call makes one RPC; when no AM answers and the client follows its
// application, it moves to the attempt that took over and, when the call
// is safe to repeat, calls again there. A submission is not: the dead
// attempt may have recorded it before it died, and the next one resumes
// it, so a second would run the DAG twice.
func (c *Client) call(ctx context.Context, op string, safe bool, rpc func(context.Context, ebbpb.ClientClient) error) error {
	for {
		pb, attempt := c.current()
		err := wrap(op, rpc(ctx, pb))
		if err == nil || !IsUnavailable(err) || c.o.Locate == nil || !safe {
			return err
		}
		t, lerr := c.o.Locate(ctx, attempt)
		if lerr != nil {
			return &GoneError{Err: err, Locate: lerr}
		}
		if err := c.redial(t); err != nil {
			return err
		}
	}
}

// bearer attaches the secret to every call, as the AM's authenticator
// (package am) expects it.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }
