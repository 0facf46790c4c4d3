package yarnrpc

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// WritableUtils.writeVLong encodings, worked by hand:
//
//	   0  -> 00                 (-112..127 is one byte)
//	 127  -> 7f
//	-112  -> 90
//	 128  -> 8f 80              (lead -113 = 8f: one byte follows)
//	 300  -> 8e 01 2c           (lead -114 = 8e: two bytes, 0x012c = 300)
//	-113  -> 87 70              (negative: lead -121 = 87, one byte of ^-113 = 112)
//	-300  -> 86 01 2b           (lead -122 = 86, ^-300 = 299 = 0x012b)
func TestVLong(t *testing.T) {
	cases := []struct {
		v    int64
		wire []byte
	}{
		{0, []byte{0x00}},
		{127, []byte{0x7f}},
		{-112, []byte{0x90}},
		{128, []byte{0x8f, 0x80}},
		{300, []byte{0x8e, 0x01, 0x2c}},
		{-113, []byte{0x87, 0x70}},
		{-300, []byte{0x86, 0x01, 0x2b}},
	}
	for _, c := range cases {
		if got := appendVLong(nil, c.v); !bytes.Equal(got, c.wire) {
			t.Errorf("encode %d = % x, want % x", c.v, got, c.wire)
		}
		got, err := readVLong(bytes.NewReader(c.wire))
		if err != nil || got != c.v {
			t.Errorf("decode % x = %d, %v; want %d", c.wire, got, err, c.v)
		}
	}
	if _, err := readVLong(bytes.NewReader([]byte{0x8e, 0x01})); err == nil {
		t.Error("truncated vlong decoded")
	}
}

func sampleCredentials() *Credentials {
	return &Credentials{
		Tokens: []NamedToken{
			{Alias: "", Token: Token{Identifier: []byte{1, 2, 3}, Password: bytes.Repeat([]byte{0xaa}, 200), Kind: KindAMRMToken}},
			{Alias: "hdfs", Token: Token{Identifier: []byte("id"), Password: []byte("pw"), Kind: "HDFS_DELEGATION_TOKEN", Service: "127.0.0.1:8020"}},
		},
		Secrets: []NamedSecret{{Alias: "s3.key", Secret: []byte("sesame")}},
	}
}

// A format-0 file built by hand, byte by byte, as Hadoop writes it.
func TestReadCredentialsWritableByHand(t *testing.T) {
	file := []byte("HDTS\x00")
	file = append(file, 0x01)                  // one token
	file = append(file, 0x00)                  // alias "" (Text: vint 0)
	file = append(file, 0x02, 0xde, 0xad)      // identifier, 2 bytes
	file = append(file, 0x01, 0x70)            // password, 1 byte
	file = append(file, 0x10)                  // kind, 16 bytes:
	file = append(file, "YARN_AM_RM_TOKEN"...) //
	file = append(file, 0x00)                  // service ""
	file = append(file, 0x00)                  // no secrets
	c, err := ReadCredentials(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	tok, ok := c.TokenOfKind(KindAMRMToken)
	if !ok || !bytes.Equal(tok.Identifier, []byte{0xde, 0xad}) || !bytes.Equal(tok.Password, []byte{0x70}) || tok.Service != "" {
		t.Errorf("got %+v", c)
	}
	if !bytes.Equal(c.MarshalWritable(), file) {
		t.Errorf("re-encoded % x, want % x", c.MarshalWritable(), file)
	}
}

func TestCredentialsRoundTripBothFormats(t *testing.T) {
	want := sampleCredentials()
	pb, err := want.MarshalProtobuf()
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string][]byte{"writable": want.MarshalWritable(), "protobuf": pb} {
		got, err := ReadCredentials(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
}

// normalize makes nil and empty byte slices compare equal.
func normalize(c *Credentials) *Credentials {
	n := &Credentials{}
	fix := func(b []byte) []byte { return append([]byte{}, b...) }
	for _, t := range c.Tokens {
		t.Token.Identifier, t.Token.Password = fix(t.Token.Identifier), fix(t.Token.Password)
		n.Tokens = append(n.Tokens, t)
	}
	for _, s := range c.Secrets {
		s.Secret = fix(s.Secret)
		n.Secrets = append(n.Secrets, s)
	}
	return n
}

func TestReadCredentialsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "container_tokens")
	if err := os.WriteFile(path, sampleCredentials().MarshalWritable(), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCredentialsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if tok, ok := c.TokenOfKind("HDFS_DELEGATION_TOKEN"); !ok || tok.Service != "127.0.0.1:8020" {
		t.Errorf("got %+v", c)
	}
	if _, err := ReadCredentialsFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file read")
	}
}

func TestReadCredentialsRejects(t *testing.T) {
	good := sampleCredentials().MarshalWritable()
	cases := map[string][]byte{
		"empty":          {},
		"bad magic":      []byte("HDTX\x00\x00\x00"),
		"unknown format": []byte("HDTS\x07"),
		"truncated":      good[:len(good)-3],
		"huge count":     []byte("HDTS\x00\x8c\x7f\xff\xff\xff"), // vint 2^31-1 tokens
		"negative count": []byte("HDTS\x00\xff"),                 // vint -1
		"proto garbage":  []byte("HDTS\x01\x05\xff\xff\xff\xff\xff"),
	}
	for name, file := range cases {
		_, err := ReadCredentials(bufio.NewReader(bytes.NewReader(file)))
		if !errorIs(err, ErrBadCredentials) {
			t.Errorf("%s: got %v, want ErrBadCredentials", name, err)
		}
	}
}

// The token file a Hadoop 3.4.1 NodeManager wrote for an AM container of the
// minicluster (nmPrivate/…/container_…_000001.tokens), copied verbatim: it
// proves the reader agrees with Hadoop's writer, not only with ours.
const hadoopAMTokenFile = "48445453000100150a0d0a09080110af88e993a034100110c69ebde30614636aecc013a4e1033bc646cda04f0354c7b6be89105941524e5f414d5f524d5f544f4b454e0000"

func TestReadCredentialsWrittenByHadoop(t *testing.T) {
	file, err := hex.DecodeString(hadoopAMTokenFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadCredentials(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	tok, ok := c.TokenOfKind(KindAMRMToken)
	// 21-byte identifier (an AMRMTokenIdentifierProto), 20-byte HMAC-SHA1 password.
	if !ok || len(c.Tokens) != 1 || len(tok.Identifier) != 21 || len(tok.Password) != 20 || tok.Service != "" || len(c.Secrets) != 0 {
		t.Fatalf("got %+v", c)
	}
	if !bytes.Equal(c.MarshalWritable(), file) {
		t.Errorf("our writer differs from Hadoop's:\n ours   % x\n hadoop % x", c.MarshalWritable(), file)
	}
}

// OfKinds keeps the tokens of the kinds asked for, in order, and nothing
// else (workers must never get the AMRMToken).
func TestOfKinds(t *testing.T) {
	c := &Credentials{Tokens: []NamedToken{
		{Alias: "a", Token: Token{Kind: KindHDFSDelegationToken}},
		{Alias: "b", Token: Token{Kind: "YARN_AM_RM_TOKEN"}},
		{Alias: "c", Token: Token{Kind: KindRMDelegationToken}},
	}}
	var got []string
	for _, nt := range c.OfKinds(KindHDFSDelegationToken, KindRMDelegationToken).Tokens {
		got = append(got, nt.Alias)
	}
	if strings.Join(got, ",") != "a,c" {
		t.Errorf("OfKinds = %v, want a,c", got)
	}
	if n := len(c.OfKinds(KindHDFSDelegationToken).Tokens); n != 1 {
		t.Errorf("HDFS tokens = %d, want 1", n)
	}
}
