package yarnrpc

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// The client side of SASL DIGEST-MD5 (RFC 2831) as Hadoop's TOKEN method
// uses it: username and password are the base64 of the token's identifier
// and password, the digest-uri is protocol + "/" + serverId ("/default"),
// and only qop=auth (authentication without integrity or privacy layers) is
// supported. Pure functions; the cnonce comes in from the caller so tests
// can replay RFC 2831's worked examples.

// digestChallenge holds the directives of a server's digest-challenge.
type digestChallenge struct {
	Realm     string
	Nonce     string
	Qop       []string // offered qop values, in the server's order
	Charset   string
	Algorithm string
}

// parseDigestChallenge parses `key=value` and `key="quoted, value"` pairs
// separated by commas. Unknown directives are ignored, as RFC 2831 asks.
func parseDigestChallenge(s string) (digestChallenge, error) {
	kv, err := parseDirectives(s)
	if err != nil {
		return digestChallenge{}, err
	}
	c := digestChallenge{
		Realm:     kv["realm"],
		Nonce:     kv["nonce"],
		Charset:   kv["charset"],
		Algorithm: kv["algorithm"],
	}
	if q, ok := kv["qop"]; ok {
		for _, v := range strings.Split(q, ",") {
			if v = strings.TrimSpace(v); v != "" {
				c.Qop = append(c.Qop, v)
			}
		}
	} else {
		c.Qop = []string{"auth"} // RFC 2831 §2.1.1: absent qop means "auth"
	}
	if c.Nonce == "" {
		return c, fmt.Errorf("%w: digest challenge without a nonce: %q", ErrSASL, s)
	}
	if c.Algorithm != "md5-sess" {
		return c, fmt.Errorf("%w: digest challenge algorithm %q, want md5-sess", ErrSASL, c.Algorithm)
	}
	return c, nil
}

// parseDirectives splits a comma-separated list of key=value directives;
// values may be quoted strings with backslash escapes and embedded commas.
func parseDirectives(s string) (map[string]string, error) {
	out := map[string]string{}
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ',' || s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return nil, fmt.Errorf("%w: digest directive without '=' at %q", ErrSASL, s[i:])
		}
		key := strings.ToLower(strings.TrimSpace(s[i : i+eq]))
		i += eq + 1
		var val strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				ch := s[i]
				i++
				if ch == '\\' && i < len(s) {
					val.WriteByte(s[i])
					i++
					continue
				}
				if ch == '"' {
					closed = true
					break
				}
				val.WriteByte(ch)
			}
			if !closed {
				return nil, fmt.Errorf("%w: unterminated quoted value for %q", ErrSASL, key)
			}
		} else {
			end := strings.IndexByte(s[i:], ',')
			if end < 0 {
				end = len(s) - i
			}
			val.WriteString(strings.TrimSpace(s[i : i+end]))
			i += end
		}
		if _, dup := out[key]; !dup {
			out[key] = val.String()
		}
	}
	return out, nil
}

// digestParams are the inputs of one DIGEST-MD5 response.
type digestParams struct {
	Username  string
	Password  string
	Realm     string
	Nonce     string
	Cnonce    string
	NC        string // "00000001" for the first response
	DigestURI string
	Qop       string
}

func md5hex(parts ...string) string {
	sum := md5.Sum([]byte(strings.Join(parts, ":")))
	return hex.EncodeToString(sum[:])
}

// digestValue computes RFC 2831 §2.1.2.1's response-value. a2Prefix is
// "AUTHENTICATE" for the client's response and "" for the server's rspauth.
//
//	A1 = H(username:realm:password) ":" nonce ":" cnonce   (H in raw bytes)
//	A2 = a2Prefix ":" digest-uri                           (qop=auth)
//	response = HEX(H( HEX(H(A1)) ":" nonce ":" nc ":" cnonce ":" qop ":" HEX(H(A2)) ))
func digestValue(p digestParams, a2Prefix string) string {
	inner := md5.Sum([]byte(p.Username + ":" + p.Realm + ":" + p.Password))
	a1 := string(inner[:]) + ":" + p.Nonce + ":" + p.Cnonce
	a2 := a2Prefix + ":" + p.DigestURI
	return md5hex(md5hex(a1), p.Nonce, p.NC, p.Cnonce, p.Qop, md5hex(a2))
}

// digestResponse renders the client's digest-response message.
func digestResponse(p digestParams) string {
	q := func(s string) string {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
	}
	var b strings.Builder
	b.WriteString("charset=utf-8")
	b.WriteString(",username=" + q(p.Username))
	if p.Realm != "" {
		b.WriteString(",realm=" + q(p.Realm))
	}
	b.WriteString(",nonce=" + q(p.Nonce))
	b.WriteString(",nc=" + p.NC)
	b.WriteString(",cnonce=" + q(p.Cnonce))
	b.WriteString(",digest-uri=" + q(p.DigestURI))
	b.WriteString(",maxbuf=65536")
	b.WriteString(",response=" + digestValue(p, "AUTHENTICATE"))
	b.WriteString(",qop=" + p.Qop)
	return b.String()
}

// chooseQop picks "auth" from the offered list, or explains why not.
func chooseQop(offered []string) (string, error) {
	for _, q := range offered {
		if q == "auth" {
			return q, nil
		}
	}
	return "", fmt.Errorf("%w: server offers qop %v but ebb supports only \"auth\"; "+
		"the cluster sets hadoop.rpc.protection to integrity or privacy, which ebb does not implement yet",
		ErrSASL, offered)
}

// newCnonce returns a fresh random client nonce.
func newCnonce() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cnonce: %w", err)
	}
	return base64.RawStdEncoding.EncodeToString(b[:]), nil
}

// digestSession carries one DIGEST-MD5 exchange from challenge to rspauth.
type digestSession struct {
	params digestParams
}

// respond answers a server challenge for the token's identifier and
// password, with digest-uri protocol/serverID.
func (d *digestSession) respond(challenge []byte, tok Token, protocol, serverID, cnonce string) ([]byte, error) {
	c, err := parseDigestChallenge(string(challenge))
	if err != nil {
		return nil, err
	}
	qop, err := chooseQop(c.Qop)
	if err != nil {
		return nil, err
	}
	d.params = digestParams{
		Username:  base64.StdEncoding.EncodeToString(tok.Identifier),
		Password:  base64.StdEncoding.EncodeToString(tok.Password),
		Realm:     c.Realm,
		Nonce:     c.Nonce,
		Cnonce:    cnonce,
		NC:        "00000001",
		DigestURI: protocol + "/" + serverID,
		Qop:       qop,
	}
	return []byte(digestResponse(d.params)), nil
}

// verify checks the server's `rspauth=...` against what the password
// implies, proving the server knows the token's secret too.
func (d *digestSession) verify(final []byte) error {
	kv, err := parseDirectives(string(final))
	if err != nil {
		return err
	}
	got, ok := kv["rspauth"]
	if !ok {
		return fmt.Errorf("%w: server's final message has no rspauth: %q", ErrSASL, final)
	}
	if want := digestValue(d.params, ""); got != want {
		return fmt.Errorf("%w: server rspauth %s does not match %s", ErrSASL, got, want)
	}
	return nil
}
