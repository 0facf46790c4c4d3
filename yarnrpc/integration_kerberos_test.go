package yarnrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Against the Kerberos minicluster (scripts/minicluster/start.sh --secure):
//
//	export EBB_TEST_SECURE_HADOOP_CONF_DIR=$(scripts/minicluster/start.sh --secure)
//	go test ./yarnrpc -run Kerberos

func secureLogin(t *testing.T, c *testcluster.SecureCluster) *kerberos.Login {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := kerberos.New(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func secureRM(t *testing.T, c *testcluster.SecureCluster, k Kerberos, opts ...Option) *ApplicationClient {
	t.Helper()
	opts = append(opts, WithKerberos(k))
	rm := NewApplicationClient(c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address"), "ignored", opts...)
	t.Cleanup(func() { _ = rm.Close() }) // test cleanup
	return rm
}

// A Kerberos-authenticated ApplicationClientProtocol call to a secure RM,
// with the RM's principal from yarn.resourcemanager.principal (_HOST).
func TestKerberosRMGetClusterMetrics(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rm := secureRM(t, c, Kerberos{
		Login:        secureLogin(t, c),
		Principal:    c.Property(t, "yarn-site.xml", "yarn.resourcemanager.principal"),
		PrincipalKey: "yarn.resourcemanager.principal",
	})
	m, err := rm.GetClusterMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.GetNumNodeManagers() != 3 {
		t.Errorf("NodeManagers = %d, want 3", m.GetNumNodeManagers())
	}
	// A second call reuses the authenticated connection.
	if _, err := rm.GetApplications(ctx, &hadooppb.GetApplicationsRequestProto{}); err != nil {
		t.Fatal(err)
	}
}

// A server principal other than the RM's: the client refuses before
// asking the KDC, naming the key to fix, and does not retry.
func TestKerberosRMWrongPrincipal(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rm := secureRM(t, c, Kerberos{
		Login:        secureLogin(t, c),
		Principal:    "rm/_HOST@" + c.Realm,
		PrincipalKey: "yarn.resourcemanager.principal",
	})
	t0 := time.Now()
	_, err := rm.GetClusterMetrics(ctx)
	if !errors.Is(err, ErrSASL) || !strings.Contains(err.Error(), "yarn.resourcemanager.principal=rm/_HOST@") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("took %v: a configuration error must not be retried", d)
	}
}

// SIMPLE to a secure RM: the server's refusal comes back as an error.
func TestKerberosRMRefusesSimple(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rm := NewApplicationClient(c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address"), "ebb",
		WithRetry(1, time.Millisecond, time.Millisecond))
	defer func() { _ = rm.Close() }() // test cleanup
	_, err := rm.GetClusterMetrics(ctx)
	if err == nil || !strings.Contains(err.Error(), "SIMPLE authentication is not enabled") {
		t.Fatalf("got %v", err)
	}
}

// hadoop.rpc.protection=privacy fails at once, naming the key and value.
func TestKerberosProtectionPrivacyRefused(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rm := secureRM(t, c, Kerberos{Login: secureLogin(t, c), Protection: "privacy",
		Principal: c.Property(t, "yarn-site.xml", "yarn.resourcemanager.principal")})
	_, err := rm.GetClusterMetrics(ctx)
	if !errors.Is(err, ErrSASL) || !strings.Contains(err.Error(), "hadoop.rpc.protection=privacy") {
		t.Fatalf("got %v", err)
	}
}
