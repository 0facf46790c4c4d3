package kerberos

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// writeKrb5Conf writes a krb5.conf whose realm's KDC is at kdc (host:port).
func writeKrb5Conf(t *testing.T, kdc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "krb5.conf")
	s := fmt.Sprintf("[libdefaults]\n default_realm = EXAMPLE.COM\n udp_preference_limit = 1\n"+
		"[realms]\n EXAMPLE.COM = {\n  kdc = %s\n }\n", kdc)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeKeytab(t *testing.T, principals ...string) string {
	t.Helper()
	kt := keytab.New()
	for _, p := range principals {
		if err := kt.AddEntry(p, "EXAMPLE.COM", "secret-"+p, time.Unix(1e9, 0), 1, etypeID.AES128_CTS_HMAC_SHA1_96); err != nil {
			t.Fatal(err)
		}
	}
	b, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "user.keytab")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// closedPort is an address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// writeCCache writes an MIT FILE ticket cache (format 0x0504) for
// ebb@EXAMPLE.COM holding one krbtgt entry that ends at end. The ticket
// bytes are junk: a cache is checked for expiry before anything reads them.
func writeCCache(t *testing.T, end time.Time, withTGT bool) string {
	t.Helper()
	var b bytes.Buffer
	w := func(v any) {
		if err := binary.Write(&b, binary.BigEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	data := func(s []byte) { w(uint32(len(s))); b.Write(s) }
	princ := func(ntype uint32, realm string, comps ...string) {
		w(ntype)
		w(uint32(len(comps)))
		data([]byte(realm))
		for _, c := range comps {
			data([]byte(c))
		}
	}
	w(uint16(0x0504))
	w(uint16(0)) // no header fields
	princ(1, "EXAMPLE.COM", "ebb")
	if withTGT {
		princ(1, "EXAMPLE.COM", "ebb")
		princ(2, "EXAMPLE.COM", "krbtgt", "EXAMPLE.COM")
		w(uint16(17)) // aes128
		data(make([]byte, 16))
		start := end.Add(-time.Hour)
		for _, ts := range []time.Time{start, start, end, end} {
			w(uint32(ts.Unix()))
		}
		w(uint8(0))  // not a session-key ticket
		w(uint32(0)) // flags
		w(uint32(0)) // addresses
		w(uint32(0)) // authdata
		data([]byte("junk-ticket"))
		data(nil)
	}
	p := filepath.Join(t.TempDir(), "krb5cc_test")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// Each failure a user can meet is a typed error whose message says what to
// run or set, and none of them waits for long.
func TestLoginFailuresSayWhatToDo(t *testing.T) {
	krb5 := writeKrb5Conf(t, closedPort(t))
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		opts  Options
		kind  error
		wants []string
	}{
		{"no cache file", Options{CCache: filepath.Join(t.TempDir(), "none")},
			ErrNoTicket, []string{"run: kinit alice@EXAMPLE.COM", "no ticket cache at", "--keytab"}},
		{"cache without a TGT", Options{CCache: writeCCache(t, now.Add(time.Hour), false)},
			ErrNoTicket, []string{"kinit ebb@EXAMPLE.COM"}},
		{"expired ticket", Options{CCache: "FILE:" + writeCCache(t, now.Add(-time.Minute), true)},
			ErrTicketExpired, []string{"kinit ebb@EXAMPLE.COM", "expired at 2026-11-22T11:59:00Z"}},
		{"KCM cache", Options{CCache: "KCM:0"},
			ErrConfig, []string{"KRB5CCNAME=FILE:"}},
		{"principal not in keytab", Options{Principal: "ebb", Keytab: writeKeytab(t, "other", "svc/host")},
			ErrWrongPrincipal, []string{"ebb@EXAMPLE.COM", "other@EXAMPLE.COM, svc/host@EXAMPLE.COM", "--principal"}},
		{"keytab without principal", Options{Keytab: writeKeytab(t, "ebb")},
			ErrConfig, []string{"--principal and --keytab go together"}},
		{"KDC down", Options{Principal: "ebb@EXAMPLE.COM", Keytab: writeKeytab(t, "ebb")},
			ErrKDCUnreachable, []string{"krb5.conf", "KRB5_CONFIG", "EXAMPLE.COM"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Getenv = env(map[string]string{"KRB5_CONFIG": krb5, "USER": "alice"})
			c.opts.Now = now
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			t0 := time.Now()
			l, err := New(ctx, c.opts)
			if err == nil {
				l.Close()
				t.Fatal("login succeeded")
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("error %v is not %v", err, c.kind)
			}
			var ke *Error
			if !errors.As(err, &ke) {
				t.Fatalf("error %T is not *kerberos.Error", err)
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
			if d := time.Since(t0); d > 6*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// A KDC that accepts the connection and never answers must not hang the
// login: the context's deadline ends it.
func TestLoginSilentKDCEndsAtDeadline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }() // test cleanup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer func() { _ = c.Close() }() // held open, silent, until the test ends
		}
	}()
	opts := Options{Principal: "ebb", Keytab: writeKeytab(t, "ebb"),
		Getenv: env(map[string]string{"KRB5_CONFIG": writeKrb5Conf(t, l.Addr().String())})}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = New(ctx, opts)
	if !errors.Is(err, ErrKDCUnreachable) {
		t.Fatalf("error %v is not ErrKDCUnreachable", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("took %v with a 500ms deadline", d)
	}
}

func TestMissingKrb5Conf(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.conf")
	_, err := New(context.Background(), Options{Getenv: env(map[string]string{"KRB5_CONFIG": missing}), Krb5Conf: missing})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "KRB5_CONFIG") {
		t.Fatalf("got %v", err)
	}
}

func TestCachePath(t *testing.T) {
	uid := os.Getuid()
	cases := []struct{ explicit, envv, want string }{
		{"", "", fmt.Sprintf("/tmp/krb5cc_%d", uid)},
		{"", "FILE:/x/cc", "FILE:/x/cc"},
		{"/y", "FILE:/x/cc", "/y"},
	}
	for _, c := range cases {
		if got := cachePath(c.explicit, env(map[string]string{"KRB5CCNAME": c.envv})); got != c.want {
			t.Errorf("cachePath(%q, KRB5CCNAME=%q) = %q, want %q", c.explicit, c.envv, got, c.want)
		}
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"ebb@EXAMPLE.COM": "ebb", "rm/host.example.com@EXAMPLE.COM": "rm", "plain": "plain",
	} {
		if got := ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServicePrincipal(t *testing.T) {
	ctx := context.Background()
	if got := ServicePrincipal(ctx, "nn/fixed@R", "127.0.0.1"); got != "nn/fixed@R" {
		t.Errorf("no _HOST: got %q", got)
	}
	// A name that does not resolve is used as given, lower-cased.
	if got := ServicePrincipal(ctx, "rm/_HOST@R", "No-Such-Host.invalid"); got != "rm/no-such-host.invalid@R" {
		t.Errorf("unresolvable: got %q", got)
	}
	// 127.0.0.1 goes through the reverse lookup, as Hadoop's Java client does.
	want := "rm/" + CanonicalHost(ctx, "127.0.0.1") + "@R"
	if got := ServicePrincipal(ctx, "rm/_HOST@R", "127.0.0.1"); got != want || strings.Contains(got, "_HOST") {
		t.Errorf("127.0.0.1: got %q, want %q", got, want)
	}
}
