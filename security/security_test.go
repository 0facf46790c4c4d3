package security

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnrpc"
)

func TestConfigFrom(t *testing.T) {
	conf := map[string]string{KeyAuthentication: "Kerberos", KeyRMPrincipal: "rm/_HOST@R"}
	c, err := ConfigFrom(func(k string) string { return conf[k] })
	if err != nil || !c.Kerberos || c.RMPrincipal != "rm/_HOST@R" {
		t.Fatalf("%+v, %v", c, err)
	}
	conf[KeyAuthentication] = ""
	if c, err := ConfigFrom(func(k string) string { return conf[k] }); err != nil || c.Kerberos {
		t.Fatalf("unset: %+v, %v", c, err)
	}
	conf[KeyAuthentication] = "ldap"
	if _, err := ConfigFrom(func(k string) string { return conf[k] }); err == nil || !strings.Contains(err.Error(), KeyAuthentication+"=ldap") {
		t.Fatalf("ldap: %v", err)
	}
}

func secureConfig(t *testing.T, c *testcluster.SecureCluster) Config {
	t.Helper()
	cfg, err := ConfigFrom(func(k string) string {
		for _, f := range []string{"core-site.xml", "yarn-site.xml", "hdfs-site.xml"} {
			if v, err := testcluster.Lookup(filepath.Join(c.ConfDir, f), k); err == nil {
				return v
			}
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Kerberos {
		t.Fatal("the secure cluster's conf does not say kerberos")
	}
	return cfg
}

// The client side of a secure submission, step by step: log in from a
// keytab, talk to the RM with Kerberos, obtain an HDFS token the RM may
// renew, and reach HDFS with that token alone, as the AM will.
func TestSecureClientFlow(t *testing.T) {
	c := testcluster.Secure(t)
	cfg := secureConfig(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	login, err := cfg.Login(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	defer login.Close()
	rmAddr := c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address")
	rm := yarnrpc.NewApplicationClient(rmAddr, "", cfg.RMOptions(login)...)
	defer func() { _ = rm.Close() }() // test cleanup
	if _, err := rm.GetNewApplication(ctx); err != nil {
		t.Fatal(err)
	}
	defaultFS := c.Property(t, "core-site.xml", "fs.defaultFS")
	creds, err := cfg.ObtainTokens(ctx, login, defaultFS, rmAddr)
	if err != nil {
		t.Fatal(err)
	}
	renewer, err := cfg.Renewer(ctx, rmAddr)
	if err != nil || renewer != c.Env["SERVICE_PRINCIPAL"] {
		t.Errorf("renewer %q (%v), want the RM's principal %q", renewer, err, c.Env["SERVICE_PRINCIPAL"])
	}
	blob := creds.MarshalWritable()
	back, err := yarnrpc.ReadCredentials(bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := cfg.DialHDFS(ctx, defaultFS, nil, back, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fs.Close() }() // test cleanup
	p := fmt.Sprintf("/user/%s/security-%d", c.UserName, time.Now().UnixNano())
	defer func() { _ = fs.RemoveAll(p) }() // test cleanup
	if _, err := fs.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A user without a ticket learns within seconds what to run.
func TestSecureNoTicket(t *testing.T) {
	c := testcluster.Secure(t)
	cfg := secureConfig(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t0 := time.Now()
	_, err := cfg.Login(ctx, kerberos.Options{Krb5Conf: c.Krb5Conf, CCache: filepath.Join(t.TempDir(), "krb5cc_none"),
		Getenv: func(k string) string {
			if k == "USER" {
				return c.UserName
			}
			return os.Getenv(k)
		}})
	if !errors.Is(err, kerberos.ErrNoTicket) || !strings.Contains(err.Error(), "kinit "+c.UserPrincipal) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}
