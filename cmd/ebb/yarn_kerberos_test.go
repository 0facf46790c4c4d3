package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnrpc"
)

// secureYarnTest is a yarnTest on the Kerberos cluster: the test's own HDFS
// and RM access are as the test user's principal, from its keytab.
func secureYarnTest(t *testing.T) (*yarnTest, *testcluster.SecureCluster) {
	t.Helper()
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	login, err := kerberos.New(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := hdfsfs.DialKerberos(ctx, c.Property(t, "core-site.xml", "fs.defaultFS"), login,
		c.Property(t, "hdfs-site.xml", hdfsfs.KeyNameNodePrincipal))
	if err != nil {
		t.Fatal(err)
	}
	rm := yarn.NewClient(c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address"), c.UserName,
		yarnrpc.WithKerberos(yarnrpc.Kerberos{Login: login, Principal: c.Property(t, "yarn-site.xml", "yarn.resourcemanager.principal")}))
	y := &yarnTest{t: t, confDir: c.ConfDir, rm: rm, fs: fs, user: c.UserName,
		dir: fmt.Sprintf("/user/%s/ebb-test/%s-%d", c.UserName, t.Name(), time.Now().UnixNano())}
	t.Cleanup(func() {
		_ = fs.RemoveAll(y.dir) // test cleanup
		_ = fs.Close()          // test cleanup
		_ = rm.Close()          // test cleanup
		login.Close()
	})
	return y, c
}

// kinitCache runs kinit from the user's keytab into a fresh ticket cache,
// as a user on a gateway would have one.
func kinitCache(t *testing.T, c *testcluster.SecureCluster) string {
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

// A word count submitted from a ticket cache on the Kerberos cluster ends
// FINISHED/SUCCEEDED with the right counts: the client reached the RM and
// HDFS with Kerberos, the AM and the workers read hdfs:// input and wrote
// the output with the HDFS delegation token the client obtained.
func TestKerberosYarnWordCountFromTicketCache(t *testing.T) {
	y, c := secureYarnTest(t)
	cc := kinitCache(t, c)
	text := "the quick brown fox\njumps over the lazy dog\nthe end\n"
	if err := y.fs.MkdirPrivate(y.dir + "/input"); err != nil {
		t.Fatal(err)
	}
	if _, err := y.fs.WriteFile(y.dir+"/input/part-0.txt", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := y.writeDAG(fmt.Sprintf(`
name: secure-wordcount
containerGroup: {name: wc, workerMemoryMB: 512}
output: %s
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 2, memoryMB: 256, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 1, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, y.fs.URL(y.dir+"/output"), y.fs.URL(y.dir+"/input")))
	y.env = []string{"KRB5_CONFIG=" + c.Krb5Conf, "KRB5CCNAME=FILE:" + cc, "HADOOP_USER_NAME="}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec}, amSets...)...)
	t.Logf("ebb submit:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
		t.Fatalf("RM reports %s %s (%s), want FINISHED SUCCEEDED", r.State, r.Final, r.Diagnostics)
	}
	sameCounts(t, y.hdfsCounts(y.dir+"/output"), countText(text))
	// Without a keytab the AM cannot outlive its tokens, and says so once.
	if n := strings.Count(secureAMLog(c, id), "cannot use HDFS after"); n != 1 {
		t.Errorf("the AM warned %d times that HDFS access ends, want once:\n%s", n, tail(secureAMLog(c, id), 30))
	}
}

// The same with --principal and --keytab, as spark-submit takes them, and
// no ticket cache at all.
func TestKerberosYarnWordCountFromKeytab(t *testing.T) {
	y, c := secureYarnTest(t)
	text := "keytab words words\nmore words\n"
	if err := y.fs.MkdirPrivate(y.dir + "/input"); err != nil {
		t.Fatal(err)
	}
	if _, err := y.fs.WriteFile(y.dir+"/input/part-0.txt", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := y.writeDAG(fmt.Sprintf(`
name: secure-wordcount-keytab
containerGroup: {name: wc, workerMemoryMB: 512}
output: %s
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 1, memoryMB: 256, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 1, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, y.fs.URL(y.dir+"/output"), y.fs.URL(y.dir+"/input")))
	y.env = []string{"KRB5_CONFIG=" + c.Krb5Conf, "KRB5CCNAME=FILE:" + filepath.Join(t.TempDir(), "none"), "HADOOP_USER_NAME="}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	args := append([]string{"submit", spec, "--principal", c.UserPrincipal, "--keytab", c.UserKeytab}, amSets...)
	out, err := y.ebb(ctx, args...)
	t.Logf("ebb submit:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	if r := y.report(id); r.State != yarn.StateFinished || r.Final != yarn.Succeeded || r.User != c.UserName {
		t.Fatalf("RM reports %s %s user %q (%s), want FINISHED SUCCEEDED as %s", r.State, r.Final, r.User, r.Diagnostics, c.UserName)
	}
	sameCounts(t, y.hdfsCounts(y.dir+"/output"), countText(text))
	// The keytab went with the AM, which can therefore refresh its tokens.
	if log := secureAMLog(c, id); !strings.Contains(log, "keytab shipped") || strings.Contains(log, "cannot use HDFS after") {
		t.Errorf("the AM does not say it has the keytab:\n%s", tail(log, 30))
	}
}

// Without a ticket, ebb submit fails within seconds, naming kinit and the
// principal to use.
func TestKerberosYarnSubmitWithoutTicket(t *testing.T) {
	y, c := secureYarnTest(t)
	y.env = []string{"KRB5_CONFIG=" + c.Krb5Conf, "KRB5CCNAME=FILE:" + filepath.Join(t.TempDir(), "none"), "USER=" + c.UserName}
	spec := y.writeDAG("name: x\nvertices:\n  - {name: v, command: [true], parallelism: 1}\n")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	out, err := y.ebb(ctx, "submit", spec)
	if err == nil {
		t.Fatalf("ebb submit without a ticket succeeded:\n%s", out)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	for _, want := range []string{"kinit " + c.UserPrincipal, "hadoop.security.authentication=kerberos"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
