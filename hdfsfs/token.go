package hdfsfs

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/yarnrpc"
)

// DialToken connects to the NameNode of defaultFS with an HDFS delegation
// token from creds (the one whose service is this NameNode's ip:port, or
// the only one): how the AM and the workers, which have no Kerberos
// ticket, reach a secure HDFS. DataNodes take the block tokens the
// NameNode hands out with each block.
//
// colinmarc/hdfs cannot authenticate with a token, so its dial function
// does: it connects, runs SASL TOKEN/DIGEST-MD5 (yarnrpc), and gives
// colinmarc/hdfs a connection that swallows the SIMPLE preamble it then
// writes; its connection context names the token's owner, the user the
// NameNode already knows the connection by.
func DialToken(ctx context.Context, defaultFS string, creds *yarnrpc.Credentials) (*FS, error) {
	return DialTokens(ctx, defaultFS, NewTokens(creds))
}

// Tokens are the delegation tokens a long-lived FS dials with, replaceable
// while it is open: an AM that obtains fresh tokens before the old ones
// reach their maximum lifetime Sets them, and every later NameNode
// connection (colinmarc/hdfs dials again after a broken one) authenticates
// with them. Connections already open stay as they are: the NameNode
// checks a token when a connection starts, not on each call.
type Tokens struct {
	mu    sync.Mutex
	creds *yarnrpc.Credentials
}

// NewTokens holds creds.
func NewTokens(creds *yarnrpc.Credentials) *Tokens { return &Tokens{creds: creds} }

// Set replaces the tokens for the connections dialled from now on.
func (t *Tokens) Set(creds *yarnrpc.Credentials) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.creds = creds
}

// Get is the current tokens.
func (t *Tokens) Get() *yarnrpc.Credentials {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.creds
}

// DialTokens is DialToken with tokens that may be replaced later.
func DialTokens(ctx context.Context, defaultFS string, toks *Tokens) (*FS, error) {
	host, err := namenodeOf(defaultFS)
	if err != nil {
		return nil, err
	}
	tok, err := pickHDFSToken(ctx, host, toks.Get())
	if err != nil {
		return nil, err
	}
	owner, err := tok.DelegationOwner()
	if err != nil {
		return nil, fmt.Errorf("hdfsfs: %w", err)
	}
	return open(host, hdfs.ClientOptions{
		Addresses:        []string{host},
		User:             owner,
		NamenodeDialFunc: tokenDialer(host, toks),
	})
}

// ErrNoToken: no HDFS delegation token for this NameNode.
var ErrNoToken = fmt.Errorf("hdfsfs: no %s", yarnrpc.KindHDFSDelegationToken)

func pickHDFSToken(ctx context.Context, host string, creds *yarnrpc.Credentials) (yarnrpc.Token, error) {
	var all []yarnrpc.Token
	for _, nt := range creds.Tokens {
		if nt.Token.Kind == yarnrpc.KindHDFSDelegationToken {
			all = append(all, nt.Token)
		}
	}
	if len(all) == 0 {
		return yarnrpc.Token{}, fmt.Errorf("%w for %s in the credentials (was the application submitted from a secure client?)", ErrNoToken, host)
	}
	if len(all) == 1 {
		return all[0], nil
	}
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return yarnrpc.Token{}, fmt.Errorf("hdfsfs: NameNode address %q: %w", host, err)
	}
	ips, err := net.DefaultResolver.LookupHost(ctx, h)
	if err != nil {
		return yarnrpc.Token{}, fmt.Errorf("hdfsfs: resolving NameNode %s: %w", h, err)
	}
	for _, t := range all {
		for _, ip := range ips {
			if t.Service == net.JoinHostPort(ip, port) || t.Service == host {
				return t, nil
			}
		}
	}
	return yarnrpc.Token{}, fmt.Errorf("%w whose service is %s (have %d for other NameNodes)", ErrNoToken, host, len(all))
}

// handshakeTimeout bounds the SASL exchange on a new NameNode connection.
const handshakeTimeout = 20 * time.Second

// tokenDialer authenticates each new connection with the HDFS token for
// host among the current toks.
func tokenDialer(host string, toks *Tokens) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
		defer cancel()
		tok, err := pickHDFSToken(ctx, host, toks.Get())
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if err := yarnrpc.AuthenticateWithToken(ctx, nc, tok); err != nil {
			_ = nc.Close() // the authentication error is the one to report
			return nil, fmt.Errorf("hdfsfs: authenticating to %s with the delegation token: %w", addr, err)
		}
		return &preambleEater{Conn: nc, left: len(simplePreamble)}, nil
	}
}

// simplePreamble is what colinmarc/hdfs writes first without Kerberos.
var simplePreamble = []byte{'h', 'r', 'p', 'c', 9, 0, 0}

// preambleEater drops the first bytes written, the preamble colinmarc/hdfs
// sends after the SASL exchange already happened.
type preambleEater struct {
	net.Conn
	left int
}

func (p *preambleEater) Write(b []byte) (int, error) {
	if p.left == 0 {
		return p.Conn.Write(b)
	}
	n := min(p.left, len(b))
	off := len(simplePreamble) - p.left
	if !bytes.Equal(b[:n], simplePreamble[off:off+n]) {
		return 0, fmt.Errorf("hdfsfs: unexpected connection preamble %x from the HDFS client", b[:n])
	}
	p.left -= n
	if n == len(b) {
		return len(b), nil
	}
	w, err := p.Conn.Write(b[n:])
	return n + w, err
}
