package yarnrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Token is a Hadoop delegation token: an opaque identifier, the password
// derived from it by the issuer's secret, a kind (e.g. YARN_AM_RM_TOKEN,
// NMToken, ContainerToken) and a service (usually host:port; YARN does not
// check it).
type Token struct {
	Identifier []byte
	Password   []byte
	Kind       string
	Service    string
}

// Well-known token kinds.
const (
	KindAMRMToken      = "YARN_AM_RM_TOKEN"
	KindNMToken        = "NMToken"
	KindContainerToken = "ContainerToken"
)

// TokenFromProto converts the wire form; nil gives the zero Token.
func TokenFromProto(p *hadooppb.TokenProto) Token {
	if p == nil {
		return Token{}
	}
	return Token{Identifier: p.GetIdentifier(), Password: p.GetPassword(), Kind: p.GetKind(), Service: p.GetService()}
}

// Proto converts to the wire form.
func (t Token) Proto() *hadooppb.TokenProto {
	return &hadooppb.TokenProto{
		Identifier: append([]byte{}, t.Identifier...),
		Password:   append([]byte{}, t.Password...),
		Kind:       proto.String(t.Kind),
		Service:    proto.String(t.Service),
	}
}

// Credentials is the content of a Hadoop token file: tokens and secret keys
// by alias, in file order.
type Credentials struct {
	Tokens  []NamedToken
	Secrets []NamedSecret
}

// NamedToken is a token and its alias in a Credentials file.
type NamedToken struct {
	Alias string
	Token Token
}

// NamedSecret is a secret key and its alias in a Credentials file.
type NamedSecret struct {
	Alias  string
	Secret []byte
}

// OfKinds is the tokens of c whose kind is one of kinds (no secrets), for
// handing on only what a receiver should hold.
func (c *Credentials) OfKinds(kinds ...string) *Credentials {
	var out Credentials
	for _, t := range c.Tokens {
		if slices.Contains(kinds, t.Token.Kind) {
			out.Tokens = append(out.Tokens, t)
		}
	}
	return &out
}

// TokenOfKind returns the first token of the given kind.
func (c *Credentials) TokenOfKind(kind string) (Token, bool) {
	for _, t := range c.Tokens {
		if t.Token.Kind == kind {
			return t.Token, true
		}
	}
	return Token{}, false
}

// ErrBadCredentials marks a token file we cannot parse.
var ErrBadCredentials = errors.New("malformed hadoop credentials")

const (
	credMagic          = "HDTS"
	credFormatWritable = 0
	credFormatProtobuf = 1
	// maxCredField bounds any single length in a token file, so a corrupt
	// length cannot make us allocate gigabytes.
	maxCredField = 16 << 20
)

// ReadCredentialsFile reads the token file at path (usually
// $HADOOP_TOKEN_FILE_LOCATION).
func ReadCredentialsFile(path string) (*Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	// Opened read-only: a failing Close loses nothing that was read.
	defer func() { _ = f.Close() }()
	c, err := ReadCredentials(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("token file %s: %w", path, err)
	}
	return c, nil
}

// ReadCredentials decodes a Credentials stream in either format:
//
//	"HDTS" | format byte | body
//
// format 0 (Writable) body:
//
//	vint nTokens, nTokens × { Text alias, Token }, vint nSecrets, nSecrets × { Text alias, vint len, bytes }
//	Token = vint idLen, id, vint pwLen, pw, Text kind, Text service;  Text = vint len, UTF-8 bytes
//
// format 1 (protobuf) body: one varint-delimited CredentialsProto.
func ReadCredentials(r io.Reader) (*Credentials, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrBadCredentials, err)
	}
	if string(head[:4]) != credMagic {
		return nil, fmt.Errorf("%w: magic %q, want %q", ErrBadCredentials, head[:4], credMagic)
	}
	switch head[4] {
	case credFormatWritable:
		return readWritableCredentials(r)
	case credFormatProtobuf:
		return readProtoCredentials(r)
	}
	return nil, fmt.Errorf("%w: unknown format %d", ErrBadCredentials, head[4])
}

func readProtoCredentials(r io.Reader) (*Credentials, error) {
	rest, err := io.ReadAll(io.LimitReader(r, maxCredField+16))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCredentials, err)
	}
	b, n := protowire.ConsumeBytes(rest)
	if n < 0 {
		return nil, fmt.Errorf("%w: protobuf body is not length-delimited", ErrBadCredentials)
	}
	var cp hadooppb.CredentialsProto
	if err := proto.Unmarshal(b, &cp); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCredentials, err)
	}
	c := &Credentials{}
	for _, kv := range cp.GetTokens() {
		c.Tokens = append(c.Tokens, NamedToken{Alias: kv.GetAlias(), Token: TokenFromProto(kv.GetToken())})
	}
	for _, kv := range cp.GetSecrets() {
		c.Secrets = append(c.Secrets, NamedSecret{Alias: kv.GetAlias(), Secret: kv.GetSecret()})
	}
	return c, nil
}

func readWritableCredentials(r io.Reader) (*Credentials, error) {
	br, ok := r.(io.ByteReader)
	if !ok {
		br = bufio.NewReader(r)
	}
	rd := &writableReader{r: br}
	c := &Credentials{}
	n := rd.count("token count")
	for i := 0; i < n && rd.err == nil; i++ {
		alias := rd.text("token alias")
		t := Token{
			Identifier: rd.bytes("token identifier"),
			Password:   rd.bytes("token password"),
			Kind:       rd.text("token kind"),
			Service:    rd.text("token service"),
		}
		c.Tokens = append(c.Tokens, NamedToken{Alias: alias, Token: t})
	}
	n = rd.count("secret count")
	for i := 0; i < n && rd.err == nil; i++ {
		c.Secrets = append(c.Secrets, NamedSecret{Alias: rd.text("secret alias"), Secret: rd.bytes("secret")})
	}
	if rd.err != nil {
		return nil, rd.err
	}
	return c, nil
}

// writableReader reads Hadoop Writable primitives, remembering the first
// error so the decoder above reads like the format.
type writableReader struct {
	r   io.ByteReader
	err error
}

func (w *writableReader) fail(what string, err error) {
	if w.err == nil {
		w.err = fmt.Errorf("%w: %s: %w", ErrBadCredentials, what, err)
	}
}

func (w *writableReader) vint(what string) int64 {
	if w.err != nil {
		return 0
	}
	v, err := readVLong(w.r)
	if err != nil {
		w.fail(what, err)
	}
	return v
}

func (w *writableReader) count(what string) int {
	v := w.vint(what)
	if w.err == nil && (v < 0 || v > maxCredField) {
		w.fail(what, fmt.Errorf("count %d out of range", v))
		return 0
	}
	return int(v)
}

func (w *writableReader) bytes(what string) []byte {
	n := w.count(what + " length")
	if w.err != nil {
		return nil
	}
	b := make([]byte, n)
	for i := range b {
		c, err := w.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			w.fail(what, err)
			return nil
		}
		b[i] = c
	}
	return b
}

func (w *writableReader) text(what string) string { return string(w.bytes(what)) }

// readVLong decodes Hadoop's WritableUtils variable-length integer (not a
// protobuf varint). The first byte b, read as signed:
//
//	-112 <= b <= 127   the value is b itself
//	-120 <= b <= -113  positive; -(b+112) big-endian bytes follow
//	-128 <= b <= -121  negative; -(b+120) bytes follow, holding ^value
func readVLong(r io.ByteReader) (int64, error) {
	first, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	b := int8(first)
	if b >= -112 {
		return int64(b), nil
	}
	neg := b < -120
	n := int(-(int(b) + 112))
	if neg {
		n = int(-(int(b) + 120))
	}
	var v int64
	for i := 0; i < n; i++ {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		v = v<<8 | int64(c)
	}
	if neg {
		v = ^v
	}
	return v, nil
}

// appendVLong encodes v as WritableUtils.writeVLong does.
func appendVLong(b []byte, v int64) []byte {
	if v >= -112 && v <= 127 {
		return append(b, byte(int8(v)))
	}
	lead := -112
	if v < 0 {
		v = ^v
		lead = -120
	}
	n := 0
	for t := v; t != 0; t >>= 8 {
		n++
	}
	b = append(b, byte(int8(lead-n)))
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// MarshalWritable encodes c in format 0, the form the NodeManager expects in
// ContainerLaunchContextProto.tokens and Hadoop's default on disk.
func (c *Credentials) MarshalWritable() []byte {
	b := append([]byte(credMagic), credFormatWritable)
	text := func(s string) { b = appendVLong(b, int64(len(s))); b = append(b, s...) }
	raw := func(p []byte) { b = appendVLong(b, int64(len(p))); b = append(b, p...) }
	b = appendVLong(b, int64(len(c.Tokens)))
	for _, t := range c.Tokens {
		text(t.Alias)
		raw(t.Token.Identifier)
		raw(t.Token.Password)
		text(t.Token.Kind)
		text(t.Token.Service)
	}
	b = appendVLong(b, int64(len(c.Secrets)))
	for _, s := range c.Secrets {
		text(s.Alias)
		raw(s.Secret)
	}
	return b
}

// MarshalProtobuf encodes c in format 1.
func (c *Credentials) MarshalProtobuf() ([]byte, error) {
	cp := &hadooppb.CredentialsProto{}
	for _, t := range c.Tokens {
		cp.Tokens = append(cp.Tokens, &hadooppb.CredentialsKVProto{Alias: proto.String(t.Alias), Token: t.Token.Proto()})
	}
	for _, s := range c.Secrets {
		cp.Secrets = append(cp.Secrets, &hadooppb.CredentialsKVProto{Alias: proto.String(s.Alias), Secret: s.Secret})
	}
	body, err := proto.Marshal(cp)
	if err != nil {
		return nil, fmt.Errorf("marshal credentials: %w", err)
	}
	b := append([]byte(credMagic), credFormatProtobuf)
	b = protowire.AppendVarint(b, uint64(len(body)))
	return append(b, body...), nil
}
