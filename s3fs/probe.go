package s3fs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"

	"github.com/ebb-am/ebb/commit"
)

var _ commit.WriteProber = BucketFS{}

// ProbeWrite tries, under the output at root, the calls its commit needs
// that a plain S3-compatible gateway may not serve: it begins a multipart
// upload in the output's staging area, lists the pending uploads and
// aborts it. Nothing is left behind and nothing becomes visible. The
// committer's Check calls it, so that an output on a store that refuses
// multipart uploads is refused at submission, before any container is
// asked for, instead of failing each sink attempt at its first write.
func (b BucketFS) ProbeWrite(root string) error {
	var r [6]byte
	_, _ = rand.Read(r[:])
	loc := b.at(path.Join(root, commit.TempDir, ".ebb-probe-"+hex.EncodeToString(r[:])))
	w, err := b.st.Begin(ctx, loc)
	if err != nil {
		return b.refused(loc, "begin a multipart upload", err)
	}
	_, lerr := b.st.Uploads(ctx, loc)
	if err := w.Abort(ctx); err != nil {
		return b.refused(loc, "abort a multipart upload", err)
	}
	if lerr != nil {
		return b.refused(loc, "list the pending multipart uploads", lerr)
	}
	return nil
}

// refused is err, and for a call the store does not serve, one line
// naming the store, the bucket and the key that points the bucket
// elsewhere.
func (b BucketFS) refused(loc Location, what string, err error) error {
	var e *Error
	if !errors.As(err, &e) || (e.Code != "NotImplemented" && e.Code != "MethodNotAllowed") {
		return err
	}
	store := "AWS S3"
	if s, serr := SettingsFor(b.bucket, b.st.lookup); serr == nil && s.Endpoint != "" {
		store = s.Endpoint
	}
	return fmt.Errorf("s3: the object store at %s refused to %s under %s (%s): ebb commits an S3 output as multipart uploads, "+
		"so bucket %s needs a store that serves them: point it at one (fs.s3a.bucket.%s.endpoint) or write the output to an hdfs:// path",
		store, what, loc, e.Code, b.bucket, b.bucket)
}
