package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/security"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// tokenLifetime is the secure cluster's HDFS token max lifetime; the
// session tests need a short one (scripts/test.sh starts the cluster with
// 30 s), and fail under CI=true (skip elsewhere) without it.
func tokenLifetime(t *testing.T, c *testcluster.SecureCluster) time.Duration {
	t.Helper()
	const key = "dfs.namenode.delegation.token.max-lifetime"
	life, _ := testcluster.Lookup(filepath.Join(c.ConfDir, "hdfs-site.xml"), key)
	ms, err := strconv.ParseInt(life, 10, 64)
	if err != nil || ms > 120_000 {
		msg := fmt.Sprintf("needs a secure cluster with %s <= 120000 (has %q): EBB_MINICLUSTER_ARGS='--set %s=30000 "+
			"--set dfs.namenode.delegation.token.renew-interval=30000' scripts/minicluster/start.sh --secure DIR", key, life, key)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPING: " + msg)
	}
	return time.Duration(ms) * time.Millisecond
}

// waitTokensDead obtains a probe HDFS token now (so after the session's
// own) and waits, on the NameNode's answer and not a clock, until the
// NameNode refuses it: the session's first tokens are then dead too.
func waitTokensDead(t *testing.T, ctx context.Context, c *testcluster.SecureCluster, life time.Duration) {
	t.Helper()
	login, err := kerberos.New(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	defer login.Close()
	sec := security.Config{Kerberos: true, RMPrincipal: c.Property(t, "yarn-site.xml", security.KeyRMPrincipal),
		NNPrincipal: c.Property(t, "hdfs-site.xml", security.KeyNNPrincipal)}
	defaultFS := c.Property(t, "core-site.xml", "fs.defaultFS")
	probe, err := sec.ObtainTokens(ctx, login, defaultFS, c.Property(t, "yarn-site.xml", "yarn.resourcemanager.address"))
	if err != nil {
		t.Fatal(err)
	}
	maxDate, _ := security.MaxDate(probe)
	deadline := time.Now().Add(life + 60*time.Second)
	for {
		fs, err := hdfsfs.DialToken(ctx, defaultFS, probe)
		if err == nil {
			_, err = fs.Stamp("/user/" + c.UserName)
			_ = fs.Close() // a read-only probe
		}
		if err != nil && strings.Contains(err.Error(), "InvalidToken") {
			t.Logf("a token issued after the session's is refused since %s (max date %s): %v", time.Now().Format(time.TimeOnly), maxDate.Format(time.TimeOnly), err)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the probe token still works %s after it was issued (max date %s; last: %v)", life+60*time.Second, maxDate, err)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// A session started with --principal/--keytab keeps running DAGs that
// read and write hdfs:// past the maximum lifetime of the tokens it was
// submitted with: its AM logs in from the shipped keytab, replaces the
// tokens for itself, its running workers and the workers it launches
// later. And nothing secret (the keytab's keys, the application secret,
// the tokens' passwords) shows in the containers' logs, their launch
// scripts (the environment) or the UI's API.
func TestKerberosYarnSessionOutlivesTokens(t *testing.T) {
	y, c := secureYarnTest(t)
	life := tokenLifetime(t, c)
	cc := kinitCache(t, c)
	text := "tokens die young\nkeytabs live on\nyoung tokens young\n"
	if err := y.fs.MkdirPrivate(y.dir + "/input"); err != nil {
		t.Fatal(err)
	}
	if _, err := y.fs.WriteFile(y.dir+"/input/part-0.txt", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each DAG in a group of its own: the second one's workers are
	// launched past the first tokens' lifetime, so the NodeManager
	// localises their files from HDFS, and they open HDFS, with the tokens
	// of their launch context. (Connections opened earlier stay good:
	// the NameNode checks a token when a connection starts.)
	specOf := func(group string) string {
		return y.writeDAG(fmt.Sprintf(`
name: outlive
containerGroup: {name: %s, workerMemoryMB: 512}
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 2, memoryMB: 256, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 1, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, group, y.fs.URL(y.dir+"/input")))
	}
	y.env = []string{"KRB5_CONFIG=" + c.Krb5Conf, "KRB5CCNAME=FILE:" + cc, "HADOOP_USER_NAME="}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	args := append([]string{"submit", "--detach", "--principal", c.UserPrincipal, "--keytab", c.UserKeytab,
		"--set", "ebb.session.idle.timeout.secs=600"}, amSets...)
	out, err := y.ebb(ctx, args...)
	t.Logf("ebb submit --detach (a session):\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	submitted := time.Now()
	t.Cleanup(func() {
		kctx, kcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer kcancel()
		_, _ = y.rm.Kill(kctx, id, "test over") // the session would idle for 10 minutes
	})
	runDAG := func(n int, group string) {
		t.Helper()
		dctx, dcancel := context.WithTimeout(ctx, 150*time.Second)
		defer dcancel()
		output := y.fs.URL(fmt.Sprintf("%s/output-%d", y.dir, n))
		start := time.Now()
		out, err := y.ebb(dctx, "dag", "submit", "--app", id.String(), "--wait", "--output", output, specOf(group))
		t.Logf("DAG %d in group %s (submitted %s after the session, took %s):\n%s", n, group,
			start.Sub(submitted).Round(time.Second), time.Since(start).Round(time.Millisecond), out)
		if err != nil || !strings.Contains(out, "SUCCEEDED") {
			t.Fatalf("DAG %d: %v\nAM log:\n%s", n, err, tail(secureAMLog(c, id), 40))
		}
		sameCounts(t, y.hdfsCounts(fmt.Sprintf("%s/output-%d", y.dir, n)), countText(text))
	}
	runDAG(1, "wc")
	early := secureWorkerLogs(c, id)
	waitTokensDead(t, ctx, c, life)
	if r := y.report(id); r.State.Done() {
		t.Fatalf("the session ended past its tokens' lifetime: %s %s (%s)", r.State, r.Final, r.Diagnostics)
	}
	runDAG(2, "wc2")
	amLog := secureAMLog(c, id)
	if !strings.Contains(amLog, "fresh delegation tokens in use by the AM") {
		t.Errorf("the AM never installed fresh tokens:\n%s", tail(amLog, 40))
	}
	// The first DAG's workers, still running, were sent the fresh tokens.
	got := 0
	for _, p := range early {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "fresh delegation tokens in place") {
			got++
		}
	}
	if len(early) == 0 || got == 0 {
		t.Errorf("none of the %d workers of the first DAG got fresh tokens (%q)", len(early), early)
	}
	y.noSecretsShown(ctx, c, id, amLog)
}

// noSecretsShown looks for the keytab's keys, the application secret and
// every token password the application's containers hold, raw, in hex and
// in base64, in the containers' logs, their launch scripts (the
// environment YARN gives them) and the UI's API answers.
func (y *yarnTest) noSecretsShown(ctx context.Context, c *testcluster.SecureCluster, id yarn.AppID, amLog string) {
	t := y.t
	t.Helper()
	secrets := map[string][]byte{}
	kb, err := os.ReadFile(c.UserKeytab)
	if err != nil {
		t.Fatal(err)
	}
	kt := keytab.New()
	if err := kt.Unmarshal(kb); err != nil {
		t.Fatal(err)
	}
	for i, e := range kt.Entries {
		secrets[fmt.Sprintf("keytab key %d", i)] = e.Key.KeyValue
	}
	staging := yarnclient.StagingDir(c.UserName, id)
	secret, err := y.fs.ReadFile(staging + "/" + yarnclient.StagedSecret)
	if err != nil {
		t.Fatal(err)
	}
	secrets["application secret"] = []byte(strings.TrimSpace(string(secret)))
	var texts []string // paths of what may be shown
	var tokenFiles int
	for _, root := range append(splitDirs(c.Env["NM_LOCAL_DIRS"]), splitDirs(c.Env["NM_LOG_DIRS"])...) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(p, id.String()) && !strings.Contains(p, strings.TrimPrefix(id.String(), "application_")) {
				return nil
			}
			switch name := d.Name(); {
			case name == "container_tokens" || strings.HasSuffix(name, ".tokens"):
				creds, err := yarnrpc.ReadCredentialsFile(p)
				if err != nil {
					return nil // a file being replaced; the others suffice
				}
				tokenFiles++
				for _, nt := range creds.Tokens {
					secrets[fmt.Sprintf("%s password (%s)", nt.Token.Kind, p)] = nt.Token.Password
				}
			case name == "launch_container.sh" || strings.HasPrefix(p, filepath.Join(root, id.String())+"/"):
				texts = append(texts, p) // launch scripts; every file of the log dirs
			}
			return nil
		})
	}
	if tokenFiles == 0 || len(texts) == 0 {
		t.Fatalf("found %d token files and %d logs or launch scripts of %s", tokenFiles, len(texts), id)
	}
	shown := map[string]string{}
	for _, p := range texts {
		b, err := os.ReadFile(p)
		if err == nil {
			shown[p] = string(b)
		}
	}
	for path, body := range y.uiAnswers(ctx, id, amLog, string(secrets["application secret"])) {
		shown[path] = body
	}
	for what, s := range secrets {
		if len(s) < 8 {
			continue // too short to be told from chance
		}
		forms := []string{string(s), hex.EncodeToString(s), strings.ToUpper(hex.EncodeToString(s)),
			base64.StdEncoding.EncodeToString(s), base64.URLEncoding.EncodeToString(s), base64.RawStdEncoding.EncodeToString(s)}
		for where, body := range shown {
			for _, f := range forms {
				if strings.Contains(body, f) {
					t.Errorf("the %s shows in %s", what, where)
				}
			}
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("no secret among %d (keytab keys, the application secret, token passwords from %d token files) in %d logs, launch scripts and UI answers",
		len(secrets), tokenFiles, len(shown))
}

var amTrackingRe = regexp.MustCompile(`tracking URL (http://\S+/)`)

// uiAnswers fetches the UI's API from the AM itself (with the UI key the
// application secret gives), keyed by URL path.
func (y *yarnTest) uiAnswers(ctx context.Context, id yarn.AppID, amLog, secret string) map[string]string {
	t := y.t
	t.Helper()
	m := amTrackingRe.FindStringSubmatch(amLog)
	if m == nil {
		t.Fatalf("no tracking URL in the AM's log of %s", id)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(p string) string {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, m[1]+p+"?key="+ui.KeyFor(secret), nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %.300s", p, resp.StatusCode, b)
		}
		return string(b)
	}
	out := map[string]string{}
	for _, p := range []string{"api/v1/overview", "api/v1/dags", "api/v1/groups", "api/v1/workers", "api/v1/nodes", "", "workers"} {
		out["/"+p] = get(p)
	}
	for _, d := range regexp.MustCompile(`"(dag_\d+)"`).FindAllStringSubmatch(out["/api/v1/dags"], -1) {
		out["/api/v1/dags/"+d[1]] = get("api/v1/dags/" + d[1])
	}
	return out
}

// secureAMLog is the AM's am.log on the secure cluster ("" until it
// exists).
func secureAMLog(c *testcluster.SecureCluster, id yarn.AppID) string {
	for _, d := range splitDirs(c.Env["NM_LOG_DIRS"]) {
		cs, _ := filepath.Glob(filepath.Join(d, id.String(), "container_*_000001"))
		for _, ctr := range cs {
			b, _ := os.ReadFile(filepath.Join(ctr, "am.log"))
			return string(b)
		}
	}
	return ""
}

// secureWorkerLogs are the worker.log files of the application's workers
// (every container but the AM's) on the secure cluster.
func secureWorkerLogs(c *testcluster.SecureCluster, id yarn.AppID) []string {
	var out []string
	for _, d := range splitDirs(c.Env["NM_LOG_DIRS"]) {
		cs, _ := filepath.Glob(filepath.Join(d, id.String(), "container_*"))
		for _, ctr := range cs {
			if !strings.HasSuffix(ctr, "_000001") {
				out = append(out, filepath.Join(ctr, "worker.log"))
			}
		}
	}
	return out
}

func splitDirs(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
