package s3fs_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

// The real server behind a gateway that answers CreateMultipartUpload
// with 501 NotImplemented: the committer's Check, which runs at
// submission, refuses the output in one line naming the store, the bucket
// and the key that points the bucket elsewhere, and leaves nothing behind;
// a write during a DAG fails at once (no retry loop, no hang) with a line
// saying what to do.
func TestAStoreRefusingMultipartUploads(t *testing.T) {
	real := s3test.Find(t)
	faults := s3test.NewFaults(t, real)
	faults.RefuseMultipart = true
	srv := faults.Server()
	st := s3fs.NewStore(srv.Lookup)
	b := s3test.BucketName("ebb-nomp")
	ctx := context.Background()
	if err := st.CreateBucket(ctx, b); err != nil {
		t.Fatal(err)
	}
	out := "s3://" + b + "/out"
	_, err := commit.New(st.Resolve).Check(out, false)
	if err == nil {
		t.Fatalf("Check(%s) on a store refusing multipart uploads passed", out)
	}
	msg := err.Error()
	for _, want := range []string{srv.Endpoint, "bucket " + b, "fs.s3a.bucket." + b + ".endpoint", "multipart", "NotImplemented"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Check's error %q does not name %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, srv.SecretKey) {
		t.Errorf("Check's error is not one line without the secret: %q", msg)
	}
	if _, refused := faults.Counts(); refused != 1 {
		t.Errorf("the gateway refused %d uploads, want 1 (the probe, not retried)", refused)
	}

	w, err := st.Begin(ctx, s3fs.Location{Scheme: "s3", Bucket: b, Key: "out/part-00000"})
	if err == nil {
		_ = w.Abort(ctx)
		t.Fatal("Begin on a store refusing multipart uploads passed")
	}
	if msg := err.Error(); !strings.Contains(msg, "s3://"+b+"/out/part-00000") || !strings.Contains(msg, "needs multipart uploads") {
		t.Errorf("a sink's first write: %q, want the URI and what the output needs", msg)
	}

	// Through the real server directly: nothing under the output, and
	// the probe is fine where multipart uploads are served.
	direct := s3fs.NewStore(real.Lookup)
	if objs, err := direct.Walk(ctx, s3fs.Location{Scheme: "s3", Bucket: b}); err != nil || len(objs) > 0 {
		t.Errorf("the refused output left %v (%v)", objs, err)
	}
	if _, err := commit.New(direct.Resolve).Check(out, false); err != nil {
		t.Errorf("Check(%s) on the real server: %v", out, err)
	}
	if ups, err := direct.Uploads(ctx, s3fs.Location{Scheme: "s3", Bucket: b}); err != nil || len(ups) > 0 {
		t.Errorf("the probe left %d uploads pending (%v)", len(ups), err)
	}
}

// The connection cut after 1 MiB of every part of one upload: the Writer
// fails (after its bounded retries) instead of leaving a short part
// behind as if whole, and its abort removes the upload; a second upload
// to the same key, as a retried attempt's, goes through whole.
func TestAnUploadCutPartWay(t *testing.T) {
	real := s3test.Find(t)
	faults := s3test.NewFaults(t, real)
	faults.CutUploadOf = func(key string) bool { return strings.HasSuffix(key, "part-00000") }
	faults.CutAfter = 1 << 20
	srv := faults.Server()
	st := s3fs.NewStore(srv.Lookup)
	b := s3test.BucketName("ebb-cut")
	ctx := context.Background()
	if err := st.CreateBucket(ctx, b); err != nil {
		t.Fatal(err)
	}
	loc := s3fs.Location{Scheme: "s3", Bucket: b, Key: "out/part-00000"}
	first := bytes.Repeat([]byte("first "), 3<<20/6)
	w, err := st.Begin(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := io.Copy(w, bytes.NewReader(first))
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil || !strings.Contains(werr.Error(), "upload part 1 of "+loc.String()) {
		t.Fatalf("the cut upload: %v, want an error naming part 1 of %s", werr, loc)
	}
	if cuts, _ := faults.Counts(); cuts != s3fs.MaxAttempts {
		t.Errorf("the part was tried %d times, want %d (bounded retries)", cuts, s3fs.MaxAttempts)
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	second := bytes.Repeat([]byte("second"), 3<<20/6)
	w, err = st.Begin(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, bytes.NewReader(second)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Bucket(loc).Complete(w.Upload()); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, loc)
	if err != nil || !bytes.Equal(got, second) {
		t.Errorf("read back %d bytes (%v), want the second upload's %d", len(got), err, len(second))
	}
	if ups, err := st.Uploads(ctx, s3fs.Location{Scheme: "s3", Bucket: b}); err != nil || len(ups) > 0 {
		t.Errorf("%d uploads left pending (%v)", len(ups), err)
	}
}
