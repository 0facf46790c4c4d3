// Package security is what a secure Hadoop cluster asks of ebb's clients:
// it reads the security keys of a Hadoop configuration, logs in with
// Kerberos, gives yarnrpc and hdfsfs the right authentication, and obtains
// the delegation tokens an application carries into its containers (the
// AM and its workers have no Kerberos ticket: they use these tokens), and
// replaces them before they die (RefreshBy, Refresher) when the AM has a
// keytab.
//
// It joins kerberos, yarnrpc and hdfsfs and nothing else: the submit path
// and the AM call it with values read from conf.
package security

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnrpc"
)

// Hadoop's keys this package reads.
const (
	KeyAuthentication = "hadoop.security.authentication"
	KeyRPCProtection  = "hadoop.rpc.protection"
	KeyRMPrincipal    = "yarn.resourcemanager.principal"
	KeyNNPrincipal    = hdfsfs.KeyNameNodePrincipal
)

// Config is the security part of a cluster's configuration.
type Config struct {
	Kerberos    bool   // hadoop.security.authentication=kerberos
	RMPrincipal string // yarn.resourcemanager.principal (_HOST allowed)
	NNPrincipal string // dfs.namenode.kerberos.principal (_HOST allowed)
	Protection  string // hadoop.rpc.protection
}

// ConfigFrom reads Config through get (a lookup in the merged Hadoop
// configuration; "" for an unset key). An authentication method other than
// simple and kerberos is an error naming the key.
func ConfigFrom(get func(key string) string) (Config, error) {
	c := Config{RMPrincipal: get(KeyRMPrincipal), NNPrincipal: get(KeyNNPrincipal), Protection: get(KeyRPCProtection)}
	switch a := strings.ToLower(strings.TrimSpace(get(KeyAuthentication))); a {
	case "", "simple":
	case "kerberos":
		c.Kerberos = true
	default:
		return Config{}, fmt.Errorf("security: %s=%s: ebb knows simple and kerberos", KeyAuthentication, a)
	}
	return c, nil
}

// Login logs in when the cluster is secure (nil, nil when it is not).
func (c Config) Login(ctx context.Context, o kerberos.Options) (*kerberos.Login, error) {
	if !c.Kerberos {
		return nil, nil
	}
	return kerberos.New(ctx, o)
}

// RMOptions are the yarnrpc options for ApplicationClientProtocol to the RM.
func (c Config) RMOptions(login *kerberos.Login) []yarnrpc.Option {
	if !c.Kerberos || login == nil {
		return nil
	}
	return []yarnrpc.Option{yarnrpc.WithKerberos(yarnrpc.Kerberos{Login: login, Principal: c.RMPrincipal,
		PrincipalKey: KeyRMPrincipal, Protection: c.Protection})}
}

// Renewer is the principal that renews the application's tokens: the RM's,
// with _HOST resolved against the RM's address (the RM renews them for as
// long as the application runs).
func (c Config) Renewer(ctx context.Context, rmAddr string) (string, error) {
	if c.RMPrincipal == "" {
		return "", fmt.Errorf("security: %s is not set: the RM must renew the application's tokens", KeyRMPrincipal)
	}
	host, _, err := net.SplitHostPort(rmAddr)
	if err != nil {
		host = rmAddr
	}
	return kerberos.ServicePrincipal(ctx, c.RMPrincipal, host), nil
}

// ObtainTokens gets the tokens an application on a secure cluster needs,
// both renewable by the RM: an HDFS delegation token for the NameNode of
// defaultFS and an RM delegation token. The result goes into the AM
// container's launch context.
func (c Config) ObtainTokens(ctx context.Context, login *kerberos.Login, defaultFS, rmAddr string) (*yarnrpc.Credentials, error) {
	renewer, err := c.Renewer(ctx, rmAddr)
	if err != nil {
		return nil, err
	}
	nnAddr, err := namenode(defaultFS)
	if err != nil {
		return nil, err
	}
	nn := yarnrpc.NewNameNodeClient(nnAddr, yarnrpc.WithKerberos(yarnrpc.Kerberos{Login: login,
		Principal: c.NNPrincipal, PrincipalKey: KeyNNPrincipal, Protection: c.Protection}))
	defer func() { _ = nn.Close() }() // the token is in hand or the error below says why not
	tok, err := nn.GetDelegationToken(ctx, renewer)
	if err != nil {
		return nil, fmt.Errorf("security: an HDFS delegation token from %s: %w", nnAddr, err)
	}
	// The AM calls the RM's client protocol too (the cluster's nodes): an
	// RM delegation token lets it without Kerberos.
	rm := yarnrpc.NewApplicationClient(rmAddr, "", c.RMOptions(login)...)
	defer func() { _ = rm.Close() }() // the token is in hand or the error below says why not
	rmTok, err := rm.GetDelegationToken(ctx, renewer)
	if err != nil {
		return nil, fmt.Errorf("security: an RM delegation token from %s: %w", rmAddr, err)
	}
	return &yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Alias: tok.Service, Token: tok}, {Alias: rmTok.Service, Token: rmTok}}}, nil
}

// DialHDFS opens HDFS as this process can: with the login (a client on the
// gateway), else with a delegation token from creds (the AM, a worker),
// else SIMPLE as user (an insecure cluster).
func (c Config) DialHDFS(ctx context.Context, defaultFS string, login *kerberos.Login, creds *yarnrpc.Credentials, user string) (*hdfsfs.FS, error) {
	switch {
	case !c.Kerberos:
		return hdfsfs.Dial(defaultFS, user)
	case login != nil:
		return hdfsfs.DialKerberos(ctx, defaultFS, login, c.NNPrincipal)
	case creds != nil:
		return hdfsfs.DialToken(ctx, defaultFS, creds)
	}
	return nil, fmt.Errorf("security: %s=kerberos, but this process has neither a Kerberos login nor an HDFS delegation token", KeyAuthentication)
}

func namenode(defaultFS string) (string, error) {
	rest, ok := strings.CutPrefix(defaultFS, "hdfs://")
	if !ok || rest == "" {
		return "", fmt.Errorf("security: fs.defaultFS %q is not hdfs://host:port", defaultFS)
	}
	host, _, _ := strings.Cut(rest, "/")
	return host, nil
}
