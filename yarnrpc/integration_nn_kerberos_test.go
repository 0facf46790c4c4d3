package yarnrpc

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// A Kerberos-authenticated client obtains an HDFS delegation token and,
// as the token's renewer, renews it.
func TestKerberosNameNodeDelegationToken(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, err := url.Parse(c.Property(t, "core-site.xml", "fs.defaultFS"))
	if err != nil {
		t.Fatal(err)
	}
	nn := NewNameNodeClient(u.Host, WithKerberos(Kerberos{Login: secureLogin(t, c),
		Principal: c.Property(t, "hdfs-site.xml", "dfs.namenode.kerberos.principal"), PrincipalKey: "dfs.namenode.kerberos.principal"}))
	defer func() { _ = nn.Close() }() // test cleanup
	tok, err := nn.GetDelegationToken(ctx, c.UserPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Kind != KindHDFSDelegationToken || len(tok.Identifier) == 0 || len(tok.Password) == 0 {
		t.Fatalf("token %+v", tok)
	}
	// use_ip: the service is the NameNode's ip:port.
	if !strings.HasPrefix(tok.Service, "127.0.0.1:") || !strings.HasSuffix(u.Host, tok.Service[strings.LastIndexByte(tok.Service, ':'):]) {
		t.Errorf("service %q for NameNode %s", tok.Service, u.Host)
	}
	exp, err := nn.RenewDelegationToken(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !exp.After(time.Now()) {
		t.Errorf("renewed until %v", exp)
	}
}
