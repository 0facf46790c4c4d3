package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

// wordCountSpec writes the word count's spec reading the fixture's input.
func (f s3Fixture) wordCountSpec(t *testing.T) string {
	t.Helper()
	spec, err := os.ReadFile("../../examples/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "wc-s3.yaml")
	s := strings.Replace(string(spec), "[wordcount-input.txt]", fmt.Sprintf("[%q]", "s3://"+f.bucket+"/in/*.txt"), 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// awsPending lists the bucket's pending multipart uploads with the AWS
// CLI, against the real server (skips without the CLI, fails under CI).
func awsPending(t *testing.T, srv s3test.Server, bucket string) []string {
	t.Helper()
	aws, err := exec.LookPath("aws")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the AWS CLI is missing (scripts/test.sh installs it from PyPI) and CI=true")
		}
		t.Skip("SKIPPING: no AWS CLI (python3 -m pip install awscli)")
	}
	cli := exec.Command(aws, "--endpoint-url", srv.Endpoint, "s3api", "list-multipart-uploads", "--bucket", bucket, "--output", "json")
	cli.Env = append(os.Environ(), srv.Env()...)
	b, err := cli.Output()
	if err != nil {
		t.Fatalf("aws s3api list-multipart-uploads: %v", err)
	}
	var ls struct {
		Uploads []struct{ Key, UploadID string }
	}
	if len(strings.TrimSpace(string(b))) > 0 {
		if err := json.Unmarshal(b, &ls); err != nil {
			t.Fatalf("aws s3api list-multipart-uploads: %v\n%s", err, b)
		}
	}
	var keys []string
	for _, u := range ls.Uploads {
		keys = append(keys, u.Key)
	}
	return keys
}

// The word count s3→s3 with the connection cut part-way through the first
// part of reducer 0's first upload, after which the store has dropped
// that upload (a fault proxy in front of the real server): that attempt
// fails and is retried;
// the output is exactly the word count (one file per reducer, nothing
// doubled), and the AWS CLI lists no pending upload afterwards.
func TestLocalUploadCutPartWayIsRetried(t *testing.T) {
	real := s3test.Find(t)
	faults := s3test.NewFaults(t, real)
	faults.CutUploadOf = func(key string) bool { return strings.HasPrefix(key, "cut-out/") && strings.HasSuffix(key, "-00000") }
	faults.CutAfter = 16
	faults.ThenForget = true // the SDK's retries of a cut: TestAnUploadCutPartWay
	f := newS3FixtureVia(t, faults.Server())
	out := "s3://" + f.bucket + "/cut-out"
	log, err := f.run(t, "local", "run", f.wordCountSpec(t), "--output", out, "--set", "ebb.local.dir="+t.TempDir())
	if err != nil || !strings.Contains(log, "SUCCEEDED") {
		t.Fatalf("ebb local run to %s: %v\n%s", out, err, log)
	}
	if cuts, _ := faults.Counts(); cuts != 1 {
		t.Errorf("the proxy cut %d part uploads, want 1", cuts)
	}

	// Exactly the retry's data: the two reducers' files, and the counts of
	// the input (a part written twice would double some).
	direct := s3fs.NewStore(real.Lookup)
	got := t.TempDir()
	var files []string
	for _, k := range f.keys(t, "cut-out/") {
		if k == "_SUCCESS" {
			continue
		}
		files = append(files, k)
		b, err := direct.Get(t.Context(), s3fs.Location{Scheme: "s3", Bucket: f.bucket, Key: "cut-out/" + k})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(got, k), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(files, " ") != "part-00000 part-00001" {
		t.Errorf("the output holds %v, want part-00000 and part-00001", files)
	}
	sameCounts(t, readCounts(t, got), countWords(t, "../../examples/wordcount-input.txt"))
	if p := awsPending(t, real, f.bucket); len(p) > 0 {
		t.Errorf("the AWS CLI lists %d pending uploads after the DAG: %v", len(p), p)
	}
}

// An output on a store that refuses multipart uploads is refused by
// `ebb local run` before an AM starts, in one line naming the store, the
// bucket and the key to change.
func TestLocalRefusesAStoreWithoutMultipart(t *testing.T) {
	faults := s3test.NewFaults(t, s3test.Find(t))
	faults.RefuseMultipart = true
	f := newS3FixtureVia(t, faults.Server())
	out := "s3://" + f.bucket + "/out"
	log, err := f.run(t, "local", "run", f.wordCountSpec(t), "--output", out)
	if err == nil {
		t.Fatalf("ebb local run to a store refusing multipart uploads passed:\n%s", log)
	}
	var line string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "multipart") {
			line = l
		}
	}
	for _, want := range []string{f.srv.Endpoint, "bucket " + f.bucket, "fs.s3a.bucket." + f.bucket + ".endpoint", out} {
		if !strings.Contains(line, want) {
			t.Errorf("the refusal %q does not name %q:\n%s", line, want, log)
		}
	}
	if strings.Contains(log, "AM at") {
		t.Errorf("the refused run started an AM:\n%s", log)
	}
}
