package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/s3fs"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// s3Gateway makes y's gateway reach the test S3 server as a user's
// would: the endpoint in fs.s3a.* keys of its mr3-site.xml, the
// credentials in its environment (the AWS chain). Neither reaches the AM or the
// workers but through their containers' credentials.
func s3Gateway(t *testing.T, y *yarnTest) (s3test.Server, *s3fs.Store, string, []string) {
	t.Helper()
	srv := s3test.Find(t)
	st := s3fs.NewStore(srv.Lookup)
	b := s3test.BucketName("ebb-yarn")
	if err := st.CreateBucket(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	confDir := t.TempDir()
	site := fmt.Sprintf(`<configuration>
<property><name>fs.s3a.endpoint</name><value>%s</value></property>
<property><name>fs.s3a.path.style.access</name><value>true</value></property>
<property><name>fs.s3a.endpoint.region</name><value>%s</value></property>
</configuration>
`, srv.Endpoint, srv.Region)
	if err := os.WriteFile(filepath.Join(confDir, "mr3-site.xml"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	y.env = append(y.env, "EBB_CONF_DIR="+confDir, "AWS_ACCESS_KEY_ID="+srv.AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.SecretKey)
	return srv, st, b, append([]string{}, amSets...)
}

func s3Keys(t *testing.T, st *s3fs.Store, b, prefix string) map[string]string {
	t.Helper()
	ctx := context.Background()
	objs, err := st.Walk(ctx, s3fs.Location{Scheme: "s3", Bucket: b, Key: prefix})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		body, err := st.Get(ctx, o.Loc)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(o.Loc.Key, prefix)] = string(body)
	}
	return out
}

func s3NoPending(t *testing.T, st *s3fs.Store, b, when string) {
	t.Helper()
	ups, err := st.Uploads(context.Background(), s3fs.Location{Scheme: "s3", Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) > 0 {
		t.Errorf("%s: %d multipart uploads pending (the first: %s)", when, len(ups), ups[0].Loc)
	}
}

// The word count from s3:// to s3:// through ebb submit on the
// minicluster: the counts are right, _SUCCESS names the files, nothing is
// left pending, and the secret key shows in no container's launch script
// or log, nor in what ebb submit printed. A second submit into the output
// is refused before an application is asked for.
func TestYarnWordCountOnS3(t *testing.T) {
	y := newYarnTest(t)
	srv, st, b, sets := s3Gateway(t, y)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	text := wordCountInput(t)
	if err := st.Put(ctx, s3fs.Location{Scheme: "s3", Bucket: b, Key: "in/words.txt"}, text); err != nil {
		t.Fatal(err)
	}
	spec := y.writeDAG(fmt.Sprintf(`
name: s3wc
containerGroup: {name: s3, workerMemoryMB: 512}
output: s3://%s/wc-out
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 2, memoryMB: 256, inputs: ["s3a://%s/in/*.txt"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, b, b))
	// The AM's and workers' ebb comes from S3 (ebb.lib.uri), and the
	// history goes there (ebb.history.dir).
	// Trailing bytes, which the loader ignores, make it a binary of its
	// own: its hash, not the client's, names the copy the gateway stages.
	bin, err := os.ReadFile(ebbBin)
	if err != nil {
		t.Fatal(err)
	}
	bin = append(bin, "\n# ebb from s3\n"...)
	staged := yarnclient.LibPath(y.user, fmt.Sprintf("%x", sha256.Sum256(bin)))
	if err := st.Put(ctx, s3fs.Location{Scheme: "s3", Bucket: b, Key: "lib/ebb"}, bin); err != nil {
		t.Fatal(err)
	}
	sets = append(sets, "--set", "ebb.lib.uri=s3://"+b+"/lib/ebb", "--set", "ebb.history.dir=s3a://"+b+"/history")
	log, err := y.ebb(ctx, append([]string{"submit", spec}, sets...)...)
	if err != nil {
		t.Fatalf("ebb submit: %v\n%s", err, log)
	}
	id := y.appID(log)
	if !strings.Contains(log, "fetched the ebb binary at s3://"+b+"/lib/ebb (ebb.lib.uri") || !strings.Contains(log, staged) {
		t.Errorf("ebb submit does not say it took the binary from S3 and staged it to %s:\n%s", staged, log)
	}
	got := s3Keys(t, st, b, "wc-out/")
	var s commit.Success
	if err := json.Unmarshal([]byte(got["_SUCCESS"]), &s); err != nil || strings.Join(s.Files, ",") != "part-00000,part-00001" {
		t.Errorf("_SUCCESS = %q (%v), want the JSON manifest of part-00000 and part-00001", got["_SUCCESS"], err)
	}
	delete(got, "_SUCCESS")
	counts := map[string]int{}
	for name, body := range got {
		if !strings.HasPrefix(name, "part-") {
			t.Errorf("the output holds %s", name)
		}
		for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
			var w string
			var n int
			if _, err := fmt.Sscanf(line, "%s\t%d", &w, &n); err == nil {
				counts[w] += n
			}
		}
	}
	sameCounts(t, counts, countText(string(text)))
	s3NoPending(t, st, b, "after the DAG")
	if strings.Contains(log, srv.SecretKey) {
		t.Errorf("ebb submit printed the secret key")
	}
	y.noS3SecretShown(id, srv.SecretKey)

	// ebb history serves the application's pages from S3.
	y.waitFor("the application to finish", 60*time.Second, func() bool { return y.report(id).State.Done() })
	history := exec.CommandContext(ctx, ebbBin, "history", id.String(), "--set", "ebb.history.dir=s3a://"+b+"/history")
	history.Env = append(os.Environ(), "HADOOP_CONF_DIR="+y.confDir, "EBB_CONF_DIR=", "EBB_LOCAL_DIR=")
	history.Env = append(history.Env, y.env...)
	historyOnS3(t, s3Keys(t, st, b, "history/"), id.String(), srv.SecretKey, history)

	// The same output again: refused by the gateway, naming it and
	// --overwrite, before an application is asked for.
	log, err = y.ebb(ctx, append([]string{"submit", spec}, sets...)...)
	if err == nil || !strings.Contains(log, "s3://"+b+"/wc-out") || !strings.Contains(log, "--overwrite") {
		t.Errorf("the second submit into s3://%s/wc-out: %v, want a refusal naming it and --overwrite:\n%s", b, err, log)
	}
	if appIDRe.MatchString(log) {
		t.Errorf("the refused submit got an application:\n%s", log)
	}
}

// noS3SecretShown looks through every launch script and log of the
// application's containers for the secret key; the token files, which
// carry it by design, must hold it (else the test proves nothing).
func (y *yarnTest) noS3SecretShown(id interface{ String() string }, secret string) {
	t := y.t
	t.Helper()
	env := testcluster.Env(t)
	var texts, tokens int
	for _, root := range append(splitDirs(env["NM_LOCAL_DIRS"]), splitDirs(env["NM_LOG_DIRS"])...) {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(p, strings.TrimPrefix(id.String(), "application_")) {
				return nil
			}
			if name := d.Name(); name == "container_tokens" || strings.HasSuffix(name, ".tokens") {
				if creds, err := yarnrpc.ReadCredentialsFile(p); err == nil {
					for _, s := range creds.Secrets {
						if s.Alias == "fs.s3a.secret.key" && string(s.Secret) == secret {
							tokens++
						}
					}
				}
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			texts++
			if strings.Contains(string(b), secret) {
				t.Errorf("the secret key shows in %s", p)
			}
			return nil
		})
	}
	if texts == 0 || tokens == 0 {
		t.Errorf("found %d logs and launch scripts and %d token files carrying the S3 secret of %s", texts, tokens, id)
	}
}

// An AM killed -9 inside the job commit on S3 (after the uploads are
// completed, before _SUCCESS) over an old output: the next AM attempt
// finishes that commit from the journal. The output is exactly the new
// files and a _SUCCESS naming them, the old ones gone, nothing pending.
func TestYarnAMKilledInsideTheS3Commit(t *testing.T) {
	y := newYarnTest(t)
	_, st, b, sets := s3Gateway(t, y)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for _, old := range []string{"out/f1-00000", "out/old-00009", "out/_SUCCESS"} {
		if err := st.Put(ctx, s3fs.Location{Scheme: "s3", Bucket: b, Key: old}, []byte("old")); err != nil {
			t.Fatal(err)
		}
	}
	spec := y.writeDAG(fmt.Sprintf(`
name: s3many-%s
containerGroup: {name: g, workerMemoryMB: 512}
output: s3://%s/out
overwrite: true
vertices:
  - name: w
    command: 'for i in $(seq 1 20); do echo $EBB_TASK_INDEX-$i > $EBB_OUTPUT_DIR/f$i; done'
    parallelism: 3
    memoryMB: 128
`, b[len(b)-8:], b))
	id, followed := y.submitFollowed(ctx, "s3many-"+b[len(b)-8:], append(append([]string{spec}, sets...), "--set", "mr3.am.max.app.attempts=2",
		"--set", "ebb.fault.commit.hold.after="+string(commit.StepCompleted))...)
	y.waitFor("attempt 1 to hold its commit after completed", 150*time.Second, func() bool {
		return y.amLogSays(id, "commit held after completed")
	})
	held := s3Keys(t, st, b, "out/")
	if held["_SUCCESS"] != "" {
		t.Errorf("while the commit is held after completing the uploads, _SUCCESS is there: %q", held["_SUCCESS"])
	}
	y.kill9AM(id)
	res := <-followed
	y.wantSucceeded(t, id, res, true)
	got := s3Keys(t, st, b, "out/")
	var s commit.Success
	if err := json.Unmarshal([]byte(got["_SUCCESS"]), &s); err != nil || len(s.Files) != 60 {
		t.Errorf("_SUCCESS = %q (%v), want the manifest of 60 files", got["_SUCCESS"], err)
	}
	delete(got, "_SUCCESS")
	want := map[string]string{}
	for task := range 3 {
		for i := 1; i <= 20; i++ {
			want[fmt.Sprintf("f%d-%05d", i, task)] = fmt.Sprintf("%d-%d\n", task, i)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the output holds %d files, want the 60 new ones", len(got))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
			break
		}
	}
	s3NoPending(t, st, b, "after the second attempt")
}

// ebb kill while the AM is inside the job commit on S3 (held after the
// journal is written, before any upload is completed): when the
// application has ended, no multipart upload is pending, and the output is
// either as it was or the whole new one with its _SUCCESS, never a part.
func TestYarnKillInsideTheS3Commit(t *testing.T) {
	y := newYarnTest(t)
	_, st, b, sets := s3Gateway(t, y)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	spec := y.writeDAG(fmt.Sprintf(`
name: s3killed-%s
containerGroup: {name: g, workerMemoryMB: 512}
output: s3://%s/out
vertices:
  - name: w
    command: 'for i in $(seq 1 10); do echo $EBB_TASK_INDEX-$i > $EBB_OUTPUT_DIR/f$i; done'
    parallelism: 2
    memoryMB: 128
`, b[len(b)-8:], b))
	id, followed := y.submitFollowed(ctx, "s3killed-"+b[len(b)-8:], append(append([]string{spec}, sets...),
		"--set", "ebb.fault.commit.hold.after="+string(commit.StepJournaled))...)
	y.waitFor("the AM to hold its commit after journaled", 150*time.Second, func() bool {
		return y.amLogSays(id, "commit held after journaled")
	})
	// The gateway that kills has the S3 settings too (it settles the
	// commit the AM left).
	killLog, err := y.ebb(ctx, "kill", id.String())
	if err != nil {
		t.Fatalf("ebb kill: %v\n%s", err, killLog)
	}
	t.Logf("ebb kill said:\n%s", killLog)
	<-followed
	y.waitFor("the application to end", time.Minute, func() bool { return y.report(id).State.Done() })
	s3NoPending(t, st, b, "after ebb kill")
	got := s3Keys(t, st, b, "out/")
	if _, ok := got["_SUCCESS"]; ok && len(got) != 21 {
		t.Errorf("after ebb kill a _SUCCESS stands beside %d files, want the 20 new ones", len(got)-1)
	}
	for k := range got {
		if strings.HasPrefix(k, "_temporary/") {
			t.Errorf("after ebb kill %s is left", k)
		}
	}
	t.Logf("after ebb kill the output holds %d objects", len(got))
}
