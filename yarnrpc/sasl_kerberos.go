package yarnrpc

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// SASL KERBEROS/GSSAPI negotiation, for hadoop.security.authentication=
// kerberos (client -> RM, client -> NameNode):
//
//	client                                server
//	NEGOTIATE ------------------------->
//	          <------------------------- NEGOTIATE auths=[..., {KERBEROS, GSSAPI, "hadoop", "nn.example.com"}]
//	INITIATE token=GSS(AP-REQ) auths=[that one] ->
//	          <------------------------- CHALLENGE token=wrap(layers offered)
//	RESPONSE token=wrap(layer chosen) -->
//	          <------------------------- SUCCESS
//
// The server names its principal in the offer (protocol/serverId); like
// Hadoop's Java client, ebb asks for a ticket only for the principal its
// configuration names, and refuses a server that claims another.

const (
	saslMethodKerberos = "KERBEROS"
	saslMechGSSAPI     = "GSSAPI"
)

// KerberosLogin is what a Kerberos connection needs of a login;
// *kerberos.Login is one.
type KerberosLogin interface {
	// Principal is the client, e.g. "ebb@EXAMPLE.COM"; it is the
	// connection's effective user.
	Principal() string
	// SASLGSSAPI starts SASL GSSAPI with service principal spn.
	SASLGSSAPI(ctx context.Context, spn string) (initial []byte, step func(challenge []byte) ([]byte, error), err error)
}

var _ KerberosLogin = (*kerberos.Login)(nil)

// Kerberos makes a client authenticate with Kerberos.
type Kerberos struct {
	Login KerberosLogin
	// Principal is the server's principal as configured, _HOST allowed:
	// yarn.resourcemanager.principal or dfs.namenode.kerberos.principal.
	Principal string
	// PrincipalKey is the configuration key Principal came from (messages).
	PrincipalKey string
	// Protection is hadoop.rpc.protection ("" means authentication).
	Protection string
}

// WithKerberos makes the client authenticate with Kerberos (SASL GSSAPI)
// instead of SIMPLE.
func WithKerberos(k Kerberos) Option { return func(o *Options) { o.kerberos = &k } }

// checkProtection accepts a hadoop.rpc.protection that allows
// authentication; integrity and privacy need every RPC packet wrapped,
// which ebb does not do.
func checkProtection(p string) error {
	if strings.TrimSpace(p) == "" {
		return nil
	}
	for _, v := range strings.Split(p, ",") {
		if strings.TrimSpace(strings.ToLower(v)) == "authentication" {
			return nil
		}
	}
	return fmt.Errorf("%w: hadoop.rpc.protection=%s is not supported: ebb does only \"authentication\" "+
		"(no SASL integrity or privacy wrapping of RPC packets); the cluster must allow hadoop.rpc.protection=authentication", ErrSASL, p)
}

// kerberosHandshake runs the exchange on rw for the server at addr.
func kerberosHandshake(ctx context.Context, rw io.ReadWriter, addr string, k *Kerberos) error {
	if err := checkProtection(k.Protection); err != nil {
		return err
	}
	if k.Principal == "" {
		return fmt.Errorf("%w: %s is not set: the server's Kerberos principal is needed", ErrSASL, keyName(k))
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	spn := kerberos.ServicePrincipal(ctx, k.Principal, host)
	send := func(m *hadooppb.RpcSaslProto) error {
		return WritePacket(rw, requestHeader(callIDSASL, nil, -1), m)
	}
	if err := send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_NEGOTIATE.Enum()}); err != nil {
		return fmt.Errorf("sasl: %w", err)
	}
	msg, err := readSASL(rw)
	if err != nil {
		return err
	}
	if msg.GetState() != hadooppb.RpcSaslProto_NEGOTIATE {
		return fmt.Errorf("%w: server answered NEGOTIATE with %v (a cluster without Kerberos? check hadoop.security.authentication)", ErrSASL, msg.GetState())
	}
	auth, err := pickKerberosAuth(msg.GetAuths())
	if err != nil {
		return err
	}
	if err := checkServerPrincipal(auth, spn, addr, k); err != nil {
		return err
	}
	initial, step, err := k.Login.SASLGSSAPI(ctx, spn)
	if err != nil {
		// A login problem is not fixed by redialing: ErrSASL stops retries.
		return fmt.Errorf("%w: %w", ErrSASL, err)
	}
	echo := proto.Clone(auth).(*hadooppb.RpcSaslProto_SaslAuth)
	echo.Challenge = nil
	if err := send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_INITIATE.Enum(), Token: initial,
		Auths: []*hadooppb.RpcSaslProto_SaslAuth{echo}}); err != nil {
		return fmt.Errorf("sasl: %w", err)
	}
	for {
		msg, err := readSASL(rw)
		if err != nil {
			return err
		}
		switch msg.GetState() {
		case hadooppb.RpcSaslProto_SUCCESS:
			return nil
		case hadooppb.RpcSaslProto_CHALLENGE:
			reply, err := step(msg.GetToken())
			if err != nil {
				return fmt.Errorf("%w: %s at %s: %w", ErrSASL, spn, addr, err)
			}
			if err := send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_RESPONSE.Enum(), Token: reply}); err != nil {
				return fmt.Errorf("sasl: %w", err)
			}
		default:
			return fmt.Errorf("%w: unexpected SASL state %v", ErrSASL, msg.GetState())
		}
	}
}

func keyName(k *Kerberos) string {
	if k.PrincipalKey != "" {
		return k.PrincipalKey
	}
	return "the server principal key"
}

// pickKerberosAuth chooses KERBEROS/GSSAPI from the server's offer.
func pickKerberosAuth(auths []*hadooppb.RpcSaslProto_SaslAuth) (*hadooppb.RpcSaslProto_SaslAuth, error) {
	var offered []string
	for _, a := range auths {
		if a.GetMethod() == saslMethodKerberos && a.GetMechanism() == saslMechGSSAPI {
			return a, nil
		}
		offered = append(offered, a.GetMethod()+"/"+a.GetMechanism())
	}
	return nil, fmt.Errorf("%w: server offers %v, not KERBEROS/GSSAPI: is the cluster secure (hadoop.security.authentication=kerberos)?", ErrSASL, offered)
}

// checkServerPrincipal compares the principal the server says it has
// (protocol/serverId) with the one the configuration names.
func checkServerPrincipal(auth *hadooppb.RpcSaslProto_SaslAuth, spn, addr string, k *Kerberos) error {
	claimed := auth.GetProtocol() + "/" + auth.GetServerId()
	want, _, _ := strings.Cut(spn, "@")
	if auth.GetProtocol() == "" || claimed == want {
		return nil
	}
	return fmt.Errorf("%w: the server at %s is %s, but %s=%s names %s: fix %s",
		ErrSASL, addr, claimed, keyName(k), k.Principal, spn, keyName(k))
}

// readSASL reads one SASL reply: a server error becomes a RemoteError.
func readSASL(r io.Reader) (*hadooppb.RpcSaslProto, error) {
	resp, err := ReadResponse(r)
	if err != nil {
		return nil, fmt.Errorf("sasl: %w", err)
	}
	if st := resp.Header.GetStatus(); st != hadooppb.RpcResponseHeaderProto_SUCCESS {
		return nil, fmt.Errorf("sasl: %w", &RemoteError{
			Class:   resp.Header.GetExceptionClassName(),
			Message: resp.Header.GetErrorMsg(),
			Fatal:   st == hadooppb.RpcResponseHeaderProto_FATAL,
		})
	}
	if resp.CallID() != callIDSASL {
		return nil, fmt.Errorf("%w: sasl reply with call id %d", ErrProtocol, resp.CallID())
	}
	msg := &hadooppb.RpcSaslProto{}
	if err := resp.Decode(msg); err != nil {
		return nil, fmt.Errorf("sasl: %w", err)
	}
	return msg, nil
}
