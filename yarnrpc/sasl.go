package yarnrpc

import (
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// SASL TOKEN/DIGEST-MD5 negotiation, run on a fresh connection right after
// the preamble (auth byte DF) and before the connection context:
//
//	client                                server
//	NEGOTIATE ------------------------->
//	          <------------------------- NEGOTIATE auths=[{TOKEN, DIGEST-MD5, "", "default", challenge}]
//	INITIATE token=response auths=[same, no challenge] ->
//	          <------------------------- SUCCESS token="rspauth=..."
//
// Every SASL packet uses call id -33 and an empty client id. A rejected
// response comes back as a FATAL header and the server closes the socket.

const (
	saslMethodToken = "TOKEN"
	saslMechDigest  = "DIGEST-MD5"
)

// saslHandshake runs the exchange on rw. cnonce supplies the client nonce
// (random in production, fixed in tests).
func saslHandshake(rw io.ReadWriter, tok Token, cnonce func() (string, error)) error {
	send := func(m *hadooppb.RpcSaslProto) error {
		return WritePacket(rw, requestHeader(callIDSASL, nil, -1), m)
	}
	if err := send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_NEGOTIATE.Enum()}); err != nil {
		return fmt.Errorf("sasl: %w", err)
	}
	var sess digestSession
	started := false
	for {
		r, err := ReadResponse(rw)
		if err != nil {
			return fmt.Errorf("sasl: %w", err)
		}
		if st := r.Header.GetStatus(); st != hadooppb.RpcResponseHeaderProto_SUCCESS {
			return fmt.Errorf("sasl: %w", &RemoteError{
				Class:   r.Header.GetExceptionClassName(),
				Message: r.Header.GetErrorMsg(),
				Fatal:   st == hadooppb.RpcResponseHeaderProto_FATAL,
			})
		}
		if r.CallID() != callIDSASL {
			return fmt.Errorf("%w: sasl reply with call id %d", ErrProtocol, r.CallID())
		}
		msg := &hadooppb.RpcSaslProto{}
		if err := r.Decode(msg); err != nil {
			return fmt.Errorf("sasl: %w", err)
		}
		switch msg.GetState() {
		case hadooppb.RpcSaslProto_NEGOTIATE:
			if started {
				return fmt.Errorf("%w: second NEGOTIATE from server", ErrSASL)
			}
			started = true
			auth, err := pickTokenAuth(msg.GetAuths())
			if err != nil {
				return err
			}
			if len(auth.GetChallenge()) == 0 {
				return fmt.Errorf("%w: server offered DIGEST-MD5 without an initial challenge", ErrSASL)
			}
			cn, err := cnonce()
			if err != nil {
				return err
			}
			resp, err := sess.respond(auth.GetChallenge(), tok, auth.GetProtocol(), auth.GetServerId(), cn)
			if err != nil {
				return err
			}
			// The server compares the echoed SaslAuth with what it offered,
			// so send it back field for field, minus the challenge.
			echo := proto.Clone(auth).(*hadooppb.RpcSaslProto_SaslAuth)
			echo.Challenge = nil
			if err := send(&hadooppb.RpcSaslProto{
				State: hadooppb.RpcSaslProto_INITIATE.Enum(),
				Token: resp,
				Auths: []*hadooppb.RpcSaslProto_SaslAuth{echo},
			}); err != nil {
				return fmt.Errorf("sasl: %w", err)
			}
		case hadooppb.RpcSaslProto_CHALLENGE:
			// DIGEST-MD5 may deliver rspauth as a last challenge that wants
			// an empty response.
			if !started {
				return fmt.Errorf("%w: CHALLENGE before NEGOTIATE", ErrSASL)
			}
			if err := sess.verify(msg.GetToken()); err != nil {
				return err
			}
			if err := send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_RESPONSE.Enum(), Token: []byte{}}); err != nil {
				return fmt.Errorf("sasl: %w", err)
			}
		case hadooppb.RpcSaslProto_SUCCESS:
			if !started {
				// The server skipped SASL (it would only do that for SIMPLE):
				// our token was never checked, which is not what we asked for.
				return fmt.Errorf("%w: server accepted the connection without authenticating the token", ErrSASL)
			}
			if len(msg.GetToken()) > 0 {
				if err := sess.verify(msg.GetToken()); err != nil {
					return err
				}
			}
			return nil
		default:
			return fmt.Errorf("%w: unexpected SASL state %v", ErrSASL, msg.GetState())
		}
	}
}

// pickTokenAuth chooses TOKEN/DIGEST-MD5 from the server's offer.
func pickTokenAuth(auths []*hadooppb.RpcSaslProto_SaslAuth) (*hadooppb.RpcSaslProto_SaslAuth, error) {
	var offered []string
	for _, a := range auths {
		if a.GetMethod() == saslMethodToken && a.GetMechanism() == saslMechDigest {
			return a, nil
		}
		offered = append(offered, a.GetMethod()+"/"+a.GetMechanism())
	}
	return nil, fmt.Errorf("%w: server offers %v, not TOKEN/DIGEST-MD5", ErrSASL, offered)
}
