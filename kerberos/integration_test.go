package kerberos

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// kinit runs MIT kinit from the test user's keytab into a fresh cache.
// Under CI=true a missing kinit fails the test (scripts/test.sh installs it).
func kinit(t *testing.T, c *testcluster.SecureCluster) string {
	t.Helper()
	bin, err := exec.LookPath("kinit")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kinit not found (apt-get install krb5-user): %v", err)
		}
		t.Skipf("SKIPPING %s: kinit not found (apt-get install krb5-user)", t.Name())
	}
	cc := filepath.Join(t.TempDir(), "krb5cc")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-kt", c.UserKeytab, c.UserPrincipal)
	cmd.Env = append(os.Environ(), "KRB5_CONFIG="+c.Krb5Conf, "KRB5CCNAME=FILE:"+cc)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v: %s", err, out)
	}
	return cc
}

// Both ways in reach the real KDC and get a ticket for the RM's principal
// as the configuration names it (_HOST resolved from the RM's address).
func TestSecureLoginGetsServiceTicket(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rm := c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address")
	host, _, _ := strings.Cut(rm, ":")
	spn := ServicePrincipal(ctx, c.Property(t, "yarn-site.xml", "yarn.resourcemanager.principal"), host)
	getenv := func(k string) string {
		if k == "KRB5_CONFIG" {
			return c.Krb5Conf
		}
		return ""
	}
	logins := map[string]Options{
		"keytab": {Principal: c.UserPrincipal, Keytab: c.UserKeytab, Getenv: getenv},
		"cache":  {CCache: "FILE:" + kinit(t, c), Getenv: getenv},
	}
	for name, o := range logins {
		t.Run(name, func(t *testing.T) {
			l, err := New(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Principal() != c.UserPrincipal || l.ShortName() != c.UserName {
				t.Errorf("principal %q short %q, want %q %q", l.Principal(), l.ShortName(), c.UserPrincipal, c.UserName)
			}
			if l.FromKeytab() != (name == "keytab") {
				t.Errorf("FromKeytab = %v", l.FromKeytab())
			}
			tkt, key, err := l.ServiceTicket(ctx, spn)
			if err != nil {
				t.Fatalf("ticket for %s: %v", spn, err)
			}
			if got := strings.Join(tkt.SName.NameString, "/") + "@" + tkt.Realm; got != spn {
				t.Errorf("ticket is for %s, want %s", got, spn)
			}
			if len(key.KeyValue) == 0 {
				t.Error("no session key")
			}
			// A service the KDC does not know is a typed error naming the keys to check.
			_, _, err = l.ServiceTicket(ctx, "nosuch/"+host+"@"+c.Realm)
			if !errors.Is(err, ErrUnknownService) || !strings.Contains(err.Error(), "yarn.resourcemanager.principal") {
				t.Errorf("unknown service: %v", err)
			}
		})
	}
}

// A principal the KDC has never heard of, with a keytab that claims it.
func TestSecureLoginUnknownPrincipal(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := New(ctx, Options{Principal: "stranger@" + c.Realm, Keytab: writeKeytab(t, "stranger"),
		Getenv: func(k string) string {
			if k == "KRB5_CONFIG" {
				return c.Krb5Conf
			}
			return ""
		}})
	if !errors.Is(err, ErrWrongPrincipal) || !strings.Contains(err.Error(), "--principal") {
		t.Fatalf("got %v", err)
	}
}
