package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

// s3Fixture is a fresh bucket on the test S3 server holding the word
// count's input, and a HADOOP_CONF_DIR whose core-site.xml reaches it
// the way a cluster configured for S3A does: per-bucket fs.s3a.bucket.B.*
// keys, the secret among them.
type s3Fixture struct {
	srv     s3test.Server
	st      *s3fs.Store
	bucket  string
	confDir string
}

func newS3Fixture(t *testing.T) s3Fixture {
	t.Helper()
	return newS3FixtureVia(t, s3test.Find(t))
}

// newS3FixtureVia is newS3Fixture with ebb reaching the server as srv
// says (through a fault proxy, say); the test's own calls go there too.
func newS3FixtureVia(t *testing.T, srv s3test.Server) s3Fixture {
	t.Helper()
	f := s3Fixture{srv: srv, st: s3fs.NewStore(srv.Lookup), bucket: s3test.BucketName("ebb-wc"), confDir: t.TempDir()}
	ctx := context.Background()
	if err := f.st.CreateBucket(ctx, f.bucket); err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile("../../examples/wordcount-input.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Put(ctx, s3fs.Location{Scheme: "s3", Bucket: f.bucket, Key: "in/wordcount-input.txt"}, in); err != nil {
		t.Fatal(err)
	}
	var props strings.Builder
	for k, v := range srv.Keys() {
		k = strings.Replace(k, "fs.s3a.", "fs.s3a.bucket."+f.bucket+".", 1)
		fmt.Fprintf(&props, "<property><name>%s</name><value>%s</value></property>\n", k, v)
	}
	site := "<configuration>\n" + props.String() + "</configuration>\n"
	if err := os.WriteFile(filepath.Join(f.confDir, "core-site.xml"), []byte(site), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// run runs ebb with the fixture's HADOOP_CONF_DIR and no AWS variables:
// everything comes from core-site.xml.
func (f s3Fixture) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd, cancel := ebbCommand(args...)
	defer cancel()
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HADOOP_CONF_DIR="+f.confDir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pending fails the test if any multipart upload is pending in the bucket.
func (f s3Fixture) noPending(t *testing.T, when string) {
	t.Helper()
	ups, err := f.st.Uploads(context.Background(), s3fs.Location{Scheme: "s3", Bucket: f.bucket})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) > 0 {
		t.Errorf("%s: %d multipart uploads are pending (the first: %s)", when, len(ups), ups[0].Loc)
	}
}

func (f s3Fixture) keys(t *testing.T, prefix string) []string {
	t.Helper()
	objs, err := f.st.Walk(context.Background(), s3fs.Location{Scheme: "s3", Bucket: f.bucket, Key: prefix})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, strings.TrimPrefix(o.Loc.Key, prefix))
	}
	return out
}

// The word count from s3:// to s3:// with `ebb local run`: the AWS CLI,
// a client nobody here wrote, lists the output with its _SUCCESS and
// reads back part files identical to the same DAG's run on local files;
// no upload is left pending; a rerun into the output is refused before an
// AM starts; the secret key is in no output or log.
func TestLocalWordCountOnS3(t *testing.T) {
	f := newS3Fixture(t)
	aws, err := exec.LookPath("aws")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the AWS CLI is missing (scripts/test.sh installs it from PyPI) and CI=true")
		}
		t.Skip("SKIPPING: no AWS CLI (python3 -m pip install awscli) to read the output back")
	}
	spec, err := os.ReadFile("../../examples/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s3Spec := filepath.Join(t.TempDir(), "wc-s3.yaml")
	s := strings.Replace(string(spec), "[wordcount-input.txt]", fmt.Sprintf("[%q]", "s3://"+f.bucket+"/in/*.txt"), 1)
	if err := os.WriteFile(s3Spec, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	localRoot := t.TempDir()
	out := "s3://" + f.bucket + "/wc-out"
	hist := "s3://" + f.bucket + "/history"
	log, err := f.run(t, "local", "run", s3Spec, "--output", out, "--set", "ebb.local.dir="+localRoot, "--set", "ebb.history.dir="+hist)
	if err != nil {
		t.Fatalf("ebb local run to %s: %v\n%s", out, err, log)
	}
	if !strings.Contains(log, "SUCCEEDED") || !strings.Contains(log, out) {
		t.Errorf("the run does not say where the results are:\n%s", log)
	}
	f.noPending(t, "after the run")

	// The same DAG on local files, for the reference output.
	ref := filepath.Join(t.TempDir(), "ref")
	if log, err := runEbb(t, "local", "run", "examples/wordcount.yaml", "--output", ref); err != nil {
		t.Fatalf("the reference run: %v\n%s", err, log)
	}
	want := treeOf(t, ref)
	for k := range want {
		if strings.HasPrefix(k, "_") {
			delete(want, k)
		}
	}

	got := t.TempDir()
	cli := exec.Command(aws, "--endpoint-url", f.srv.Endpoint, "s3", "cp", "--recursive", "--only-show-errors", out, got)
	cli.Env = append(os.Environ(), f.srv.Env()...)
	if b, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("aws s3 cp: %v\n%s", err, b)
	}
	read := treeOf(t, got)
	if _, ok := read["_SUCCESS"]; !ok {
		t.Errorf("the AWS CLI finds no _SUCCESS in %s: %v", out, names(read))
	}
	delete(read, "_SUCCESS")
	if !reflect.DeepEqual(read, want) {
		t.Errorf("the AWS CLI reads back %v from %s, want the local run's %v", names(read), out, names(want))
	}
	sameCounts(t, readCounts(t, got), countWords(t, "../../examples/wordcount-input.txt"))

	// The history went to S3, and `ebb ui --history` serves it from there.
	histKeys := map[string]string{}
	var snapshot string
	for _, k := range f.keys(t, "history/") {
		b, err := f.st.Get(context.Background(), s3fs.Location{Scheme: "s3", Bucket: f.bucket, Key: "history/" + k})
		if err != nil {
			t.Fatal(err)
		}
		histKeys[k] = string(b)
		if !strings.Contains(k, "/") && strings.HasSuffix(k, ".json") {
			snapshot = strings.TrimSuffix(k, ".json")
		}
	}
	ui, cancel := ebbCommand("ui", "--history", hist+"/"+snapshot+".json")
	defer cancel()
	ui.Env = append(ui.Env, "HADOOP_CONF_DIR="+f.confDir)
	historyOnS3(t, histKeys, snapshot, f.srv.SecretKey, ui)

	log, err = f.run(t, "local", "run", s3Spec, "--output", out)
	if err == nil || !strings.Contains(log, out) || !strings.Contains(log, "--overwrite") {
		t.Errorf("the rerun into %s: %v, want a refusal naming it and --overwrite:\n%s", out, err, log)
	}
	if strings.Contains(log, "AM at") {
		t.Errorf("the refused rerun started an AM:\n%s", log)
	}

	// The secret key: in no output, in no log, nowhere under the local
	// root but the workers' private credentials file.
	secret := f.srv.SecretKey
	if strings.Contains(log, secret) {
		t.Errorf("ebb printed the secret key")
	}
	_ = filepath.WalkDir(localRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "worker-credentials" {
			return err
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret key", p)
		}
		return nil
	})
}

// A DAG that fails after one sink task committed (its uploads pending and
// recorded) leaves no object under its output and no pending upload.
func TestLocalFailedDAGLeavesNothingOnS3(t *testing.T) {
	f := newS3Fixture(t)
	spec := filepath.Join(t.TempDir(), "fails.yaml")
	err := os.WriteFile(spec, []byte(`name: fails
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - name: sink
    command: 'echo data > "$EBB_OUTPUT_DIR/part"; if [ "$EBB_TASK_INDEX" = 1 ]; then sleep 1; exit 3; fi'
    parallelism: 2
    memoryMB: 128
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	out := "s3://" + f.bucket + "/failed-out"
	log, err := f.run(t, "local", "run", spec, "--output", out)
	if err == nil || !strings.Contains(log, "FAILED") {
		t.Fatalf("the failing DAG: %v, want FAILED:\n%s", err, log)
	}
	if k := f.keys(t, "failed-out"); len(k) > 0 {
		t.Errorf("the failed DAG left %v under %s", k, out)
	}
	f.noPending(t, "after the failed DAG")
}
