package yarnclient

import (
	"context"
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
