package testcluster

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// EnvSecureConfDir names the variable that points tests at the secure
// (Kerberos) cluster's conf dir: scripts/minicluster/start.sh --secure.
const EnvSecureConfDir = "EBB_TEST_SECURE_HADOOP_CONF_DIR"

const secureHint = "start one with\n\texport " + EnvSecureConfDir +
	"=$(scripts/minicluster/start.sh --secure)\nand stop it afterwards with " +
	"scripts/minicluster/stop.sh /tmp/ebb-minicluster-secure (see scripts/minicluster/README.md)"

var errSecureUnset = errors.New(EnvSecureConfDir + " is unset")

// SecureCluster is the Kerberos test cluster: its conf dir and what a
// client needs to log in (from cluster.env).
type SecureCluster struct {
	ConfDir       string
	Krb5Conf      string // KRB5_CONFIG
	Realm         string
	UserPrincipal string // ebb@EXAMPLE.COM
	UserName      string // ebb, the user's name on the cluster
	UserKeytab    string
	Env           map[string]string // all of cluster.env
}

// Secure returns the secure test cluster, or skips (fails under CI=true)
// when EBB_TEST_SECURE_HADOOP_CONF_DIR is unset, like ConfDir.
func Secure(t testing.TB) *SecureCluster {
	t.Helper()
	dir, err := locateVar(os.Getenv, EnvSecureConfDir, errSecureUnset)
	switch {
	case err == nil:
	case errors.Is(err, errSecureUnset) && os.Getenv("CI") != "true":
		t.Skipf("SKIPPING SECURE INTEGRATION TEST %s: no Kerberos cluster (%s is unset); %s", t.Name(), EnvSecureConfDir, secureHint)
	default:
		t.Fatalf("integration test %s needs the Kerberos cluster: %v; %s", t.Name(), err, secureHint)
	}
	env, err := ReadEnv(filepath.Join(filepath.Dir(dir), "cluster.env"))
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	if env["SECURE"] != "true" {
		t.Fatalf("testcluster: %s=%s is not a secure cluster (cluster.env SECURE=%q)", EnvSecureConfDir, dir, env["SECURE"])
	}
	return &SecureCluster{ConfDir: dir, Krb5Conf: env["KRB5_CONFIG"], Realm: env["KRB_REALM"],
		UserPrincipal: env["USER_PRINCIPAL"], UserName: env["USER_NAME"], UserKeytab: env["USER_KEYTAB"], Env: env}
}

// Property reads key from file in the secure cluster's conf dir.
func (c *SecureCluster) Property(t testing.TB, file, key string) string {
	t.Helper()
	v, err := lookup(filepath.Join(c.ConfDir, file), key)
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	return v
}

// Lookup reads key from a Hadoop site file (ErrNoProperty when unset).
func Lookup(path, key string) (string, error) { return lookup(path, key) }
