package security

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnrpc"
)

// delegationID builds an AbstractDelegationTokenIdentifier with the given
// dates (ms); owner and renewer do not matter here.
func delegationID(issued, maxDate int64) []byte {
	vlong := func(b []byte, v int64) []byte { // WritableUtils.writeVLong, small enough cases
		var tmp [8]byte
		n := 0
		for x := v; x != 0; x >>= 8 {
			n++
		}
		b = append(b, byte(int8(-112-n)))
		for i := n - 1; i >= 0; i-- {
			tmp[0] = byte(v >> (8 * i))
			b = append(b, tmp[0])
		}
		return b
	}
	id := []byte{0, 1, 'a', 1, 'b', 0}
	return vlong(vlong(id, issued), maxDate)
}

func TestRefreshAt(t *testing.T) {
	base := int64(1_700_000_000_000)
	tok := func(issued, maxDate int64) yarnrpc.NamedToken {
		return yarnrpc.NamedToken{Token: yarnrpc.Token{Kind: yarnrpc.KindHDFSDelegationToken, Identifier: delegationID(issued, maxDate)}}
	}
	// Two tokens: 0..100 s and 20..60 s. 75% of the way: 75 s and 20+30 = 50 s;
	// the earlier one wins.
	creds := &yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{tok(base, base+100_000), tok(base+20_000, base+60_000)}}
	at, ok := RefreshAt(creds)
	if !ok || at.UnixMilli() != base+50_000 {
		t.Errorf("RefreshAt = %v (%v), want %d", at.UnixMilli(), ok, base+50_000)
	}
	if _, ok := RefreshAt(&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Token: yarnrpc.Token{Identifier: []byte("x")}}}}); ok {
		t.Error("an unreadable identifier gave a refresh time")
	}
}

// A session outlives its tokens: the HDFS token reaches its maximum
// lifetime (short in the test cluster: scripts/test.sh sets
// dfs.namenode.delegation.token.max-lifetime), the NameNode then refuses
// it, and a keytab login obtains a fresh one that works.
func TestSecureTokensPastMaxLifetime(t *testing.T) {
	c := testcluster.Secure(t)
	cfg := secureConfig(t, c)
	// Unset means Hadoop's default, seven days: too long to wait for.
	life, _ := testcluster.Lookup(filepath.Join(c.ConfDir, "hdfs-site.xml"), "dfs.namenode.delegation.token.max-lifetime")
	ms, err := strconv.ParseInt(life, 10, 64)
	if err != nil || ms > 120_000 {
		msg := fmt.Sprintf("needs a secure cluster with dfs.namenode.delegation.token.max-lifetime <= 120000 (has %q): "+
			"EBB_MINICLUSTER_ARGS='--set dfs.namenode.delegation.token.max-lifetime=30000' scripts/minicluster/start.sh --secure", life)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPING: " + msg)
	}
	lifetime := time.Duration(ms) * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), lifetime+90*time.Second)
	defer cancel()
	// The AM's login from the shipped keytab.
	login, err := cfg.Login(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	defer login.Close()
	defaultFS := c.Property(t, "core-site.xml", "fs.defaultFS")
	rmAddr := c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address")
	old, err := cfg.ObtainTokens(ctx, login, defaultFS, rmAddr)
	if err != nil {
		t.Fatal(err)
	}
	d, err := old.Tokens[0].Token.Delegation()
	if err != nil {
		t.Fatal(err)
	}
	if got := d.MaxDate.Sub(d.Issued); got != lifetime {
		t.Errorf("token lives %v, the cluster says %v", got, lifetime)
	}
	if at, ok := RefreshAt(old); !ok || !at.After(d.Issued) || !at.Before(d.MaxDate) {
		t.Errorf("refresh at %v, token %v..%v", at, d.Issued, d.MaxDate)
	}
	readWith := func(creds *yarnrpc.Credentials) error {
		fs, err := cfg.DialHDFS(ctx, defaultFS, nil, creds, "")
		if err != nil {
			return err
		}
		defer func() { _ = fs.Close() }() // a read-only probe
		_, err = fs.Stamp("/user/" + c.UserName)
		return err
	}
	if err := readWith(old); err != nil {
		t.Fatalf("a fresh token does not work: %v", err)
	}
	// Wait, by the token's own dates, until the NameNode refuses it.
	deadline := d.MaxDate.Add(30 * time.Second)
	var lastErr error
	for lastErr == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the token still works at %v, 30 s past its maximum date %v", time.Now(), d.MaxDate)
		}
		wait := time.Until(d.MaxDate)
		if wait < time.Second {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(wait):
		}
		lastErr = readWith(old)
	}
	// colinmarc/hdfs flattens the cause into text ("no available
	// namenodes: ..."), so the NameNode's words are what can be checked.
	if !strings.Contains(lastErr.Error(), "InvalidToken") || !strings.Contains(lastErr.Error(), "expired") {
		t.Errorf("the expired token fails with %v, want the NameNode's InvalidToken ... expired", lastErr)
	}
	fresh, err := cfg.ObtainTokens(ctx, login, defaultFS, rmAddr)
	if err != nil {
		t.Fatal(err)
	}
	if err := readWith(fresh); err != nil {
		t.Fatalf("a fresh token from the keytab login does not work: %v", err)
	}
}
