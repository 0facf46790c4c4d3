package kerberos

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"
)

// SASL GSSAPI (RFC 4752) over a Kerberos GSS-API context (RFC 4121), the
// client side, as Hadoop's RPC servers run it:
//
//	client                                  server
//	initial token: GSS wrapping of AP-REQ -->
//	          <-- wrap(4 bytes: offered layers bitmask, max buffer size)
//	wrap(4 bytes: chosen layer, our max buffer) -->
//	          <-- SUCCESS
//
// The layers are 1 = none (hadoop.rpc.protection=authentication),
// 2 = integrity, 4 = privacy. ebb chooses "none"; the others need every
// later RPC packet wrapped, which it does not do.

// Security layers of RFC 4752, as a bitmask.
const (
	LayerNone      byte = 1
	LayerIntegrity byte = 2
	LayerPrivacy   byte = 4
)

// ErrLayer: the server offers no security layer ebb can use (it wants
// integrity or privacy: hadoop.rpc.protection).
var ErrLayer = errors.New("SASL GSSAPI security layer not supported")

// ErrGSS: the server's GSS token is malformed or fails its checksum.
var ErrGSS = errors.New("GSS-API token rejected")

// SASLGSSAPI starts a SASL GSSAPI exchange with the service spn
// ("hadoop/nn.example.com@EXAMPLE.COM"): it returns the initial token, and
// a step function that answers each later server challenge.
func (l *Login) SASLGSSAPI(ctx context.Context, spn string) (initial []byte, step func(challenge []byte) ([]byte, error), err error) {
	tkt, key, err := l.ServiceTicket(ctx, spn)
	if err != nil {
		return nil, nil, err
	}
	return saslStart(l.cl, tkt, key)
}

// saslStart builds the initial token from a service ticket; apart from
// SASLGSSAPI so tests can hand it a ticket made without a KDC.
func saslStart(cl *client.Client, tkt messages.Ticket, key types.EncryptionKey) ([]byte, func([]byte) ([]byte, error), error) {
	// No mutual authentication: the server then answers the AP-REQ with
	// its security-layer offer straight away (Java's GSSAPI server does),
	// and that offer, checksummed with the session key, proves the server
	// holds the service key just as an AP-REP would.
	tok, err := spnego.NewKRB5TokenAPREQ(cl, tkt, key,
		[]int{gssapi.ContextFlagInteg, gssapi.ContextFlagConf}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("kerberos: building the GSS-API token: %w", err)
	}
	b, err := tok.Marshal()
	if err != nil {
		return nil, nil, fmt.Errorf("kerberos: building the GSS-API token: %w", err)
	}
	s := &saslSession{key: key}
	return b, s.step, nil
}

type saslSession struct {
	key  types.EncryptionKey
	done bool
}

// step answers one server challenge. An empty challenge (a server that
// sent an empty GSS token after the AP-REQ) gets an empty answer; the
// security-layer offer gets our choice; nothing may follow it.
func (s *saslSession) step(challenge []byte) ([]byte, error) {
	if len(challenge) == 0 {
		return []byte{}, nil
	}
	if s.done {
		return nil, fmt.Errorf("%w: challenge after the security layer was agreed", ErrGSS)
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(challenge, true); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGSS, err)
	}
	if ok, err := wt.Verify(s.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		return nil, fmt.Errorf("%w: the server's security-layer offer fails its checksum (a server without the service key?): %w", ErrGSS, err)
	}
	if len(wt.Payload) != 4 {
		return nil, fmt.Errorf("%w: security-layer offer of %d bytes, want 4", ErrGSS, len(wt.Payload))
	}
	offered := wt.Payload[0]
	if offered&LayerNone == 0 {
		return nil, &LayerError{Offered: offered}
	}
	// Our choice: no layer, and so no buffer size (RFC 4752 3.1: zero when
	// no layer is chosen); no authorization identity, as Hadoop's client.
	reply := make([]byte, 4)
	binary.BigEndian.PutUint32(reply, 0)
	reply[0] = LayerNone
	out, err := gssapi.NewInitiatorWrapToken(reply, s.key)
	if err != nil {
		return nil, fmt.Errorf("kerberos: wrapping the security-layer choice: %w", err)
	}
	s.done = true
	return out.Marshal()
}

// LayerError says which layers the server wanted.
type LayerError struct{ Offered byte }

func (e *LayerError) Error() string {
	return fmt.Sprintf("%v: the server requires %s (hadoop.rpc.protection=%s on the server); ebb supports only authentication",
		ErrLayer, layerNames(e.Offered), ProtectionName(e.Offered))
}

func (e *LayerError) Unwrap() error { return ErrLayer }

func layerNames(m byte) string {
	var s []string
	if m&LayerIntegrity != 0 {
		s = append(s, "integrity")
	}
	if m&LayerPrivacy != 0 {
		s = append(s, "privacy")
	}
	if len(s) == 0 {
		return fmt.Sprintf("unknown layers %#x", m)
	}
	if len(s) == 2 {
		return s[0] + " or " + s[1]
	}
	return s[0]
}

// ProtectionName is the hadoop.rpc.protection value that gives a server
// the layer bitmask m.
func ProtectionName(m byte) string {
	var s []string
	if m&LayerNone != 0 {
		s = append(s, "authentication")
	}
	if m&LayerIntegrity != 0 {
		s = append(s, "integrity")
	}
	if m&LayerPrivacy != 0 {
		s = append(s, "privacy")
	}
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}
