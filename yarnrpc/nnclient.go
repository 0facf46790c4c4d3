package yarnrpc

import (
	"context"
	"fmt"
	"net"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// ProtocolClientNamenode is HDFS's client protocol (the NameNode's RPC
// address, fs.defaultFS).
const ProtocolClientNamenode = "org.apache.hadoop.hdfs.protocol.ClientProtocol"

// KindHDFSDelegationToken is the kind of a NameNode's delegation token.
const KindHDFSDelegationToken = "HDFS_DELEGATION_TOKEN"

// NameNodeClient speaks the delegation-token calls of ClientProtocol to a
// NameNode; file access goes through colinmarc/hdfs (package hdfsfs). A
// NameNode issues and renews tokens only for Kerberos-authenticated
// callers: use WithKerberos.
type NameNodeClient struct {
	rpc  *Client
	addr string
}

// NewNameNodeClient returns a client for the NameNode at addr (host:port).
func NewNameNodeClient(addr string, opts ...Option) *NameNodeClient {
	return &NameNodeClient{rpc: newClient(addr, ProtocolClientNamenode, "", nil, opts), addr: addr}
}

// Close ends the connection.
func (n *NameNodeClient) Close() error { return n.rpc.Close() }

// GetDelegationToken obtains a token that renewer (a principal, normally
// the RM's: it renews the token for the application's life) may renew.
// The NameNode leaves the service empty; like Hadoop's client, it is set
// to the NameNode's ip:port, which is how the RM finds whom to renew with
// (hadoop.security.token.service.use_ip, on by default).
func (n *NameNodeClient) GetDelegationToken(ctx context.Context, renewer string) (Token, error) {
	resp := &hadooppb.GetDelegationTokenResponseProto{}
	req := &hadooppb.GetDelegationTokenRequestProto{Renewer: proto.String(renewer)}
	// Not resent once it may have been sent: a retry would issue a second
	// token, harmless but untidy; the caller's own retry is clearer.
	if err := n.rpc.call(ctx, "getDelegationToken", retryUnsent, req, resp); err != nil {
		return Token{}, err
	}
	if resp.GetToken() == nil {
		return Token{}, fmt.Errorf("%w: the NameNode at %s issued no delegation token (is security off?)", ErrProtocol, n.addr)
	}
	t := TokenFromProto(resp.GetToken())
	if t.Service == "" {
		svc, err := tokenService(ctx, n.addr)
		if err != nil {
			return Token{}, err
		}
		t.Service = svc
	}
	return t, nil
}

// RenewDelegationToken extends t's life; only its renewer may. It returns
// the new expiry time.
func (n *NameNodeClient) RenewDelegationToken(ctx context.Context, t Token) (time.Time, error) {
	resp := &hadooppb.RenewDelegationTokenResponseProto{}
	req := &hadooppb.RenewDelegationTokenRequestProto{Token: t.Proto()}
	if err := n.rpc.call(ctx, "renewDelegationToken", retrySafe, req, resp); err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(int64(resp.GetNewExpiryTime())), nil
}

// tokenService is Hadoop's token service for a server address: ip:port.
func tokenService(ctx context.Context, addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("token service of %q: %w", addr, err)
	}
	if net.ParseIP(host) != nil {
		return addr, nil
	}
	ips, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil || len(ips) == 0 {
		return "", fmt.Errorf("token service: resolving %s: %w", host, err)
	}
	return net.JoinHostPort(ips[0], port), nil
}
