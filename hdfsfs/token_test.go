package hdfsfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnrpc"
)

// recordConn keeps what is written to it.
type recordConn struct {
	net.Conn
	got bytes.Buffer
}

func (r *recordConn) Write(b []byte) (int, error) { return r.got.Write(b) }

// The dialer's connection drops exactly colinmarc/hdfs's SIMPLE preamble,
// whichever way the writes are split, and refuses anything else.
func TestPreambleEater(t *testing.T) {
	msg := append(append([]byte{}, simplePreamble...), "abc"...)
	for _, split := range []int{0, 3, 7, 9, 10} {
		rc := &recordConn{}
		p := &preambleEater{Conn: rc, left: len(simplePreamble)}
		for _, part := range [][]byte{msg[:split], msg[split:]} {
			if n, err := p.Write(part); err != nil || n != len(part) {
				t.Fatalf("split %d: wrote %d of %d: %v", split, n, len(part), err)
			}
		}
		if rc.got.String() != "abc" {
			t.Errorf("split %d: server got %q", split, rc.got.String())
		}
	}
	p := &preambleEater{Conn: &recordConn{}, left: len(simplePreamble)}
	if _, err := p.Write([]byte("hrpc\x09\x00\xdf")); err == nil {
		t.Error("a SASL preamble was passed off as SIMPLE")
	}
}

func TestPickHDFSTokenNone(t *testing.T) {
	_, err := pickHDFSToken(context.Background(), "127.0.0.1:1", &yarnrpc.Credentials{})
	if !errors.Is(err, ErrNoToken) {
		t.Fatalf("got %v", err)
	}
}

// A process with no Kerberos ticket reads and writes a secure HDFS with a
// delegation token another (Kerberos) client obtained: the AM's and the
// workers' way in. The token travels through a Credentials blob as in a
// launch context.
func TestKerberosDelegationTokenReadWrite(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	login, err := kerberos.New(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	defer login.Close()
	defaultFS := c.Property(t, "core-site.xml", "fs.defaultFS")
	u, err := url.Parse(defaultFS)
	if err != nil {
		t.Fatal(err)
	}
	nn := yarnrpc.NewNameNodeClient(u.Host, yarnrpc.WithKerberos(yarnrpc.Kerberos{Login: login,
		Principal: c.Property(t, "hdfs-site.xml", KeyNameNodePrincipal)}))
	defer func() { _ = nn.Close() }() // test cleanup
	tok, err := nn.GetDelegationToken(ctx, c.Env["SERVICE_PRINCIPAL"])
	if err != nil {
		t.Fatal(err)
	}
	blob := (&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Alias: tok.Service, Token: tok}}}).MarshalWritable()
	creds, err := yarnrpc.ReadCredentials(bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := DialToken(ctx, defaultFS, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fs.Close() }() // test cleanup
	dir := fmt.Sprintf("/user/%s/hdfsfs-token/%d", c.UserName, time.Now().UnixNano())
	defer func() { _ = fs.RemoveAll(dir) }() // test cleanup
	if err := fs.MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.WriteFile(dir+"/f", []byte("via token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(dir + "/f"); err != nil || string(b) != "via token\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	// A forged password is refused by the NameNode, as a failure to connect.
	bad := tok
	bad.Password = append([]byte{}, tok.Password...)
	bad.Password[0] ^= 0xff
	if fs2, err := DialToken(ctx, defaultFS, &yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Token: bad}}}); err == nil {
		_, err = fs2.ReadFile(dir + "/f")
		_ = fs2.Close() // test cleanup
		if err == nil {
			t.Error("a forged token read the file")
		}
	}
}

// The dialer of a DialTokens FS picks its token from the current Tokens at
// each new connection, so tokens Set later (an AM's fresh ones) are the
// ones a reconnection authenticates with.
func TestTokenDialerReadsCurrentTokens(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lis.Close() }()
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			_ = c.Close() // no NameNode here: the dial gets as far as the handshake
		}
	}()
	toks := NewTokens(&yarnrpc.Credentials{})
	dial := tokenDialer(lis.Addr().String(), toks)
	ctx := context.Background()
	if _, err := dial(ctx, "tcp", lis.Addr().String()); !errors.Is(err, ErrNoToken) {
		t.Fatalf("with no HDFS token: %v, want ErrNoToken", err)
	}
	toks.Set(&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Token: yarnrpc.Token{Kind: yarnrpc.KindHDFSDelegationToken,
		Identifier: []byte("id"), Password: []byte("pw"), Service: lis.Addr().String()}}}})
	_, err = dial(ctx, "tcp", lis.Addr().String())
	if err == nil || errors.Is(err, ErrNoToken) {
		t.Fatalf("with a token set since: %v, want the handshake's failure", err)
	}
}
