package yarnrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// fakeKerberos is a login whose GSS tokens are fixed bytes; it records the
// service principal asked for.
type fakeKerberos struct {
	asked []string
	fail  error
}

func (f *fakeKerberos) Principal() string { return "ebb@EXAMPLE.COM" }

func (f *fakeKerberos) SASLGSSAPI(_ context.Context, spn string) ([]byte, func([]byte) ([]byte, error), error) {
	f.asked = append(f.asked, spn)
	if f.fail != nil {
		return nil, nil, f.fail
	}
	return []byte("ap-req"), func(ch []byte) ([]byte, error) {
		if string(ch) != "offer" {
			return nil, errors.New("unexpected challenge " + string(ch))
		}
		return []byte("choice"), nil
	}, nil
}

// kerberosServer plays the server's side of KERBEROS/GSSAPI with fixed
// tokens, checking every client packet on the way, as principal
// protocol/serverId.
func kerberosServer(t *testing.T, protocol, serverID string) *fakeServer {
	s := newFakeServer(t, func(c *fakeConn, id int32, method string, _ []byte) {
		c.reply(t, okHeader(id), metricsReply(3))
	})
	read := func(c *fakeConn, want hadooppb.RpcSaslProto_SaslState) (*hadooppb.RpcSaslProto, error) {
		h, parts, err := ReadRequest(c)
		if err != nil {
			return nil, err
		}
		m := &hadooppb.RpcSaslProto{}
		if h.GetCallId() != callIDSASL || len(parts) != 1 || proto.Unmarshal(parts[0], m) != nil || m.GetState() != want {
			t.Errorf("want a SASL %v, got call %d %v", want, h.GetCallId(), m)
			return nil, errors.New("bad packet")
		}
		return m, nil
	}
	s.sasl = func(c *fakeConn) error {
		if _, err := read(c, hadooppb.RpcSaslProto_NEGOTIATE); err != nil {
			return err
		}
		c.reply(t, okHeader(callIDSASL), &hadooppb.RpcSaslProto{
			State: hadooppb.RpcSaslProto_NEGOTIATE.Enum(),
			Auths: []*hadooppb.RpcSaslProto_SaslAuth{
				{Method: proto.String("TOKEN"), Mechanism: proto.String("DIGEST-MD5"),
					Protocol: proto.String(""), ServerId: proto.String("default"), Challenge: []byte("realm=...")},
				{Method: proto.String("KERBEROS"), Mechanism: proto.String("GSSAPI"),
					Protocol: proto.String(protocol), ServerId: proto.String(serverID)},
			},
		})
		init, err := read(c, hadooppb.RpcSaslProto_INITIATE)
		if err != nil {
			return err
		}
		a := init.GetAuths()
		if string(init.GetToken()) != "ap-req" || len(a) != 1 || a[0].GetMethod() != "KERBEROS" ||
			a[0].GetProtocol() != protocol || a[0].GetServerId() != serverID {
			t.Errorf("INITIATE %v", init)
		}
		c.reply(t, okHeader(callIDSASL), &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_CHALLENGE.Enum(), Token: []byte("offer")})
		resp, err := read(c, hadooppb.RpcSaslProto_RESPONSE)
		if err != nil {
			return err
		}
		if string(resp.GetToken()) != "choice" {
			t.Errorf("RESPONSE token %q", resp.GetToken())
		}
		c.reply(t, okHeader(callIDSASL), &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_SUCCESS.Enum()})
		return nil
	}
	return s
}

func TestKerberosHandshakeFraming(t *testing.T) {
	s := kerberosServer(t, "rm", "127.0.0.1")
	login := &fakeKerberos{}
	rm := NewApplicationClient(s.addr(), "os-user", fastRetry(),
		WithKerberos(Kerberos{Login: login, Principal: "rm/127.0.0.1@EXAMPLE.COM"}))
	defer func() { _ = rm.Close() }() // test cleanup
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := rm.GetClusterMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.GetNumNodeManagers() != 3 {
		t.Errorf("metrics %v", m)
	}
	if len(login.asked) != 1 || login.asked[0] != "rm/127.0.0.1@EXAMPLE.COM" {
		t.Errorf("tickets asked for %v", login.asked)
	}
	// The effective user is the principal, not the OS user.
	if u := s.context.Load().GetUserInfo().GetEffectiveUser(); u != "ebb@EXAMPLE.COM" {
		t.Errorf("effective user %q", u)
	}
}

// A server that claims another principal than the configured one is
// refused before any ticket is asked for, naming the key; no retry.
func TestKerberosHandshakeWrongServer(t *testing.T) {
	s := kerberosServer(t, "impostor", "127.0.0.1")
	login := &fakeKerberos{}
	rm := NewApplicationClient(s.addr(), "u", fastRetry(), WithKerberos(Kerberos{
		Login: login, Principal: "rm/127.0.0.1@EXAMPLE.COM", PrincipalKey: "yarn.resourcemanager.principal"}))
	defer func() { _ = rm.Close() }() // test cleanup
	_, err := rm.GetClusterMetrics(context.Background())
	if !errors.Is(err, ErrSASL) || !strings.Contains(err.Error(), "impostor/127.0.0.1") ||
		!strings.Contains(err.Error(), "yarn.resourcemanager.principal") {
		t.Fatalf("got %v", err)
	}
	if len(login.asked) != 0 || s.accepts.Load() != 1 {
		t.Errorf("asked %v, %d connections", login.asked, s.accepts.Load())
	}
}

// A login failure (no ticket) stops at once: redialing cannot fix it.
func TestKerberosLoginFailureNotRetried(t *testing.T) {
	s := kerberosServer(t, "rm", "127.0.0.1")
	noTicket := errors.New("no ticket: run kinit ebb@EXAMPLE.COM")
	login := &fakeKerberos{fail: noTicket}
	rm := NewApplicationClient(s.addr(), "u", fastRetry(), WithKerberos(Kerberos{Login: login, Principal: "rm/127.0.0.1@EXAMPLE.COM"}))
	defer func() { _ = rm.Close() }() // test cleanup
	_, err := rm.GetClusterMetrics(context.Background())
	if !errors.Is(err, noTicket) || !errors.Is(err, ErrSASL) {
		t.Fatalf("got %v", err)
	}
	if s.accepts.Load() != 1 {
		t.Errorf("%d connections: retried", s.accepts.Load())
	}
}

func TestCheckProtection(t *testing.T) {
	for p, ok := range map[string]bool{"": true, "authentication": true, "privacy,authentication": true,
		"integrity": false, "privacy": false} {
		err := checkProtection(p)
		if (err == nil) != ok {
			t.Errorf("checkProtection(%q) = %v", p, err)
		}
		if err != nil && !strings.Contains(err.Error(), "hadoop.rpc.protection="+p) {
			t.Errorf("message %q does not name the key and value", err)
		}
	}
}
