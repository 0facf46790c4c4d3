package yarnclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

// ebb.lib.uri on S3, against the real server: the first submit fetches
// the object and stages it in the lib directory under its SHA-256 (as a
// binary the gateway uploads); the next finds the copy from the object's
// ETag and fetches nothing; a missing object is refused naming the key
// and the URI before anything is staged.
func TestLibURIOnS3(t *testing.T) {
	srv := s3test.Find(t)
	st := s3fs.NewStore(srv.Lookup)
	b := s3test.BucketName("ebb-lib")
	ctx := context.Background()
	if err := st.CreateBucket(ctx, b); err != nil {
		t.Fatal(err)
	}
	const body = "#!ebb from s3"
	uri := "s3a://" + b + "/lib/ebb"
	if err := st.Put(ctx, s3fs.Location{Scheme: "s3", Bucket: b, Key: "lib/ebb"}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	sets := []string{"ebb.lib.uri", uri}
	for k, v := range srv.Keys() {
		sets = append(sets, k, v)
	}
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t, sets...), rm, fs)
	yc.hashCache = filepath.Join(t.TempDir(), "binary.sha256")
	want := "hdfs://nn:8020" + LibPath("alice", sha256Hex(body))
	got, said := submitSaying(t, yc, rm)
	if got.URL != want || got.Size != int64(len(body)) || len(fs.uploads) != 1 {
		t.Fatalf("first submit: binary %+v, uploads %v; want %s uploaded", got, fs.uploads, want)
	}
	if string(fs.files[LibPath("alice", sha256Hex(body))]) != body {
		t.Errorf("the staged copy holds %q, want the object's %q", fs.files[LibPath("alice", sha256Hex(body))], body)
	}
	if len(said) < 2 || !strings.HasPrefix(said[0], "fetched the ebb binary at "+uri+" (ebb.lib.uri") {
		t.Errorf("first submit said %q", said)
	}
	got2, said := submitSaying(t, yc, rm)
	if got2 != got || len(fs.uploads) != 1 {
		t.Errorf("second submit: binary %+v (first %+v), uploads %v", got2, got, fs.uploads)
	}
	if len(said) < 1 || !strings.Contains(said[0], "staged to "+want+" by an earlier submit") {
		t.Errorf("second submit said %q", said)
	}

	missing := "s3://" + b + "/lib/nothing"
	rm, fs = newFakeRM(), newMemStore()
	sets[1] = missing
	yc = testClient(t, testConf(t, sets...), rm, fs)
	_, err := yc.Submit(ctx, SubmitOptions{Session: true})
	if err == nil || !strings.Contains(err.Error(), "ebb.lib.uri") || !strings.Contains(err.Error(), missing+" does not") || strings.Contains(err.Error(), "\n") {
		t.Errorf("ebb.lib.uri=%s: %v, want one line naming the key and the URI", missing, err)
	}
	if len(rm.submitted) != 0 || fs.dirs[StagingDir("alice", rm.id)] {
		t.Errorf("the missing binary was submitted anyway")
	}
}

// ebb submit reads nothing of a DAG's S3 inputs but one listing call
// each, before an application is asked for: a missing bucket and a
// refused secret are one line naming the input; an output on a store
// refusing multipart uploads is refused naming the bucket's endpoint key.
func TestS3InputsAndOutputCheckedAtSubmission(t *testing.T) {
	real := s3test.Find(t)
	faults := s3test.NewFaults(t, real)
	faults.RefuseMultipart = true
	st := s3fs.NewStore(real.Lookup)
	b := s3test.BucketName("ebb-sub")
	if err := st.CreateBucket(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	submit := func(srv s3test.Server, input, output string) error {
		sets := []string{}
		for k, v := range srv.Keys() {
			sets = append(sets, k, v)
		}
		p := filepath.Join(t.TempDir(), "s3.yaml")
		spec := "name: s3\ncontainerGroup: {name: g, workerMemoryMB: 1024}\noutput: " + output +
			"\nvertices:\n  - {name: map, command: [ebb, task, wc-map], parallelism: 1, memoryMB: 512, inputs: [\"" + input + "\"]}\n"
		if err := os.WriteFile(p, []byte(spec), 0o600); err != nil {
			t.Fatal(err)
		}
		rm := newFakeRM()
		rm.newAppErr = errors.New("an application was asked for")
		_, err := testClient(t, testConf(t, sets...), rm, newMemStore()).Submit(context.Background(), SubmitOptions{DAGPath: p})
		return err
	}
	wrongSecret := real
	wrongSecret.SecretKey = "not-the-secret-9e2"
	for _, c := range []struct {
		name          string
		srv           s3test.Server
		input, output string
		want          []string
	}{
		{"no bucket", real, "s3://no-such-bucket-ebb/in/*.txt", "s3://" + b + "/out", []string{"vertex map input", "s3://no-such-bucket-ebb/in/*.txt", "the bucket does not exist"}},
		{"wrong secret", wrongSecret, "s3://" + b + "/in/", "s3://" + b + "/out", []string{"s3://" + b + "/out", "fs.s3a.secret.key"}},
		{"no multipart", faults.Server(), "s3://" + b + "/in/", "s3://" + b + "/out", []string{"refused to begin a multipart upload", "fs.s3a.bucket." + b + ".endpoint"}},
		{"fine", real, "s3a://" + b + "/in/*.txt", "s3://" + b + "/out", []string{"an application was asked for"}},
	} {
		err := submit(c.srv, c.input, c.output)
		if err == nil {
			t.Errorf("%s: submitted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), c.srv.SecretKey) {
				t.Errorf("%s: %q, want one line saying %q and no secret", c.name, err, w)
			}
		}
	}
}

// An S3 history directory with the event log on (which appends) and one
// naming no bucket are refused before an application is asked for.
func TestS3HistoryDirCheckedAtSubmission(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"ebb.history.dir", "s3://logs/ebb", "ebb.am.event.log.enabled", "true"}, "ebb.am.event.log.enabled=true needs ebb.history.dir on HDFS"},
		{[]string{"ebb.history.dir", "s3a:///ebb"}, `ebb.history.dir = "s3a:///ebb"`},
	} {
		rm := newFakeRM()
		rm.newAppErr = errors.New("an application was asked for")
		_, err := testClient(t, testConf(t, c.sets...), rm, newMemStore()).Submit(context.Background(), SubmitOptions{Session: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.sets, err, c.want)
		}
	}
	rm := newFakeRM()
	rm.newAppErr = errors.New("an application was asked for")
	_, err := testClient(t, testConf(t, "ebb.history.dir", "s3://logs/ebb"), rm, newMemStore()).Submit(context.Background(), SubmitOptions{Session: true})
	if err == nil || err.Error() != "asking the ResourceManager at rm:8032 for an application id: an application was asked for" {
		t.Errorf("a good S3 history directory: %v", err)
	}
}
