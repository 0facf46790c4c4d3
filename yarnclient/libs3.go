package yarnclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ebb-am/ebb/s3fs"
)

// An ebb.lib.uri on S3 (s3:// or s3a://) is staged by the gateway into the
// lib directory on the cluster's file system, where a binary the gateway
// uploads would go (LibPath, by its SHA-256), and the AM and the workers
// are given that copy. YARN's NodeManagers localise what their own
// Hadoop file systems reach: an s3a:// resource needs hadoop-aws on their
// class path and S3 credentials in their own configuration, which a
// cluster may not have, and the credentials ebb sends travel in the
// containers' token files, which the localiser does not read. Staging
// works on every cluster and costs one copy per build: the gateway
// remembers each object's SHA-256 by its ETag (libMemo), so a later submit
// of the same object asks S3 for its ETag and HDFS for the copy, and
// downloads nothing.

// s3Binary places the binary ebb.lib.uri names on S3.
func (c *Client) s3Binary(fs Store, uri string, say func(string)) (binaryPlaced, error) {
	loc, err := s3fs.Parse(uri)
	if err != nil {
		return binaryPlaced{}, c.conf.ErrorFor(KeyLibURI, "an hdfs:// URL or an s3://BUCKET/KEY URI of an ebb binary")
	}
	st := s3fs.NewStore(c.conf.Raw)
	ctx := context.Background()
	size, etag, err := st.Head(ctx, loc)
	if errors.Is(err, os.ErrNotExist) {
		return binaryPlaced{}, c.conf.ErrorFor(KeyLibURI, fmt.Sprintf("an ebb binary that exists; %s does not", uri))
	}
	if err != nil {
		return binaryPlaced{}, fmt.Errorf("%s: %w", KeyLibURI, err)
	}
	memo := c.libMemo(uri, etag)
	if sum, ok := readLibMemo(memo, size); ok {
		p := LibPath(c.user, sum)
		if info, err := fs.Info(p); err == nil && !info.IsDir && info.Size == size {
			say(fmt.Sprintf("using the ebb binary at %s (%s), staged to %s by an earlier submit", uri, KeyLibURI, fs.URL(p)))
			return placed(fs, p, info)
		}
	}
	local, sum, err := downloadBinary(ctx, st, loc, size)
	if err != nil {
		return binaryPlaced{}, fmt.Errorf("%s: %w", KeyLibURI, err)
	}
	defer func() { _ = os.Remove(local) }() // a temporary copy
	writeLibMemo(memo, sum, size)
	say(fmt.Sprintf("fetched the ebb binary at %s (%s, %.1f MB) to stage it on the cluster's file system", uri, KeyLibURI, float64(size)/(1<<20)))
	return c.placeLocal(fs, say, local, sum, size)
}

// downloadBinary copies the object at loc into a temporary file,
// hashing it on the way.
func downloadBinary(ctx context.Context, st *s3fs.Store, loc s3fs.Location, size int64) (string, string, error) {
	r, err := st.Open(ctx, loc)
	if err != nil {
		return "", "", err
	}
	defer func() { _ = r.Close() }() // read only
	f, err := os.CreateTemp("", "ebb-lib-*")
	if err != nil {
		return "", "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("read %d bytes of %s, which holds %d", n, loc, size)
	}
	if err != nil {
		_ = os.Remove(f.Name()) // the error says what failed
		return "", "", err
	}
	return f.Name(), hex.EncodeToString(h.Sum(nil)), nil
}

// libMemo is the file beside the hash cache that remembers the SHA-256 of
// the object uri had with etag ("" without a hash cache: no memo).
func (c *Client) libMemo(uri, etag string) string {
	if c.hashCache == "" {
		return ""
	}
	k := sha256.Sum256([]byte(uri + "\n" + etag))
	return filepath.Join(filepath.Dir(c.hashCache), "s3lib-"+hex.EncodeToString(k[:12]))
}

func readLibMemo(memo string, size int64) (string, bool) {
	if memo == "" {
		return "", false
	}
	b, err := os.ReadFile(memo)
	if err != nil {
		return "", false
	}
	sum, n, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if got, err := strconv.ParseInt(n, 10, 64); !ok || err != nil || got != size || len(sum) != 64 {
		return "", false
	}
	return sum, true
}

func writeLibMemo(memo, sum string, size int64) {
	if memo == "" {
		return
	}
	_ = os.MkdirAll(filepath.Dir(memo), 0o700) // at worst the next submit downloads again
	tmp := memo + ".tmp-" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, []byte(sum+" "+strconv.FormatInt(size, 10)+"\n"), 0o600) == nil {
		_ = os.Rename(tmp, memo)
	}
	_ = os.Remove(tmp) // gone after a rename
}
