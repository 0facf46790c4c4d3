package s3fs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/ebb-am/ebb/commit"
)

// BucketFS is one bucket as the committer's file system (commit.ObjectFS):
// paths are keys written as absolute paths ("/out/part-00000"), and a
// directory is any prefix ending in "/" that some key has.
type BucketFS struct {
	st     *Store
	scheme string
	bucket string
}

var _ commit.ObjectFS = BucketFS{}

// Bucket is the bucket of location as a BucketFS.
func (st *Store) Bucket(loc Location) BucketFS {
	return BucketFS{st: st, scheme: loc.Scheme, bucket: loc.Bucket}
}

// Resolve is a commit.Resolver for s3:// and s3a:// locations.
func (st *Store) Resolve(location string) (commit.FS, string, error) {
	loc, err := Parse(location)
	if err != nil {
		return nil, "", err
	}
	return st.Bucket(loc), loc.Path(), nil
}

func (b BucketFS) at(p string) Location {
	return Location{Scheme: b.scheme, Bucket: b.bucket, Key: strings.TrimPrefix(path.Clean("/"+p), "/")}
}

// dirPrefix is p as a prefix of the keys under it.
func (b BucketFS) dirPrefix(p string) Location {
	l := b.at(p)
	if l.Key != "" {
		l.Key += "/"
	}
	return l
}

var ctx = context.Background()

func (b BucketFS) Stat(p string) (bool, error) {
	l := b.at(p)
	if l.Key == "" {
		return true, nil
	}
	_, _, err := b.st.Head(ctx, l)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	files, dirs, derr := b.st.Dir(ctx, l)
	if derr != nil {
		return false, derr
	}
	if len(files) > 0 || len(dirs) > 0 {
		return true, nil
	}
	return false, err
}

func (b BucketFS) ReadDir(dir string) ([]commit.Entry, error) {
	files, dirs, err := b.st.Dir(ctx, b.at(dir))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 && len(dirs) == 0 {
		return nil, &Error{Op: "list", URI: b.at(dir).String(), Code: "NotFound", Err: fs.ErrNotExist}
	}
	var out []commit.Entry
	for _, f := range files {
		out = append(out, commit.Entry{Name: path.Base(f.Loc.Key)})
	}
	for _, d := range dirs {
		out = append(out, commit.Entry{Name: d, Dir: true})
	}
	return out, nil
}

// MkdirAll does nothing: a directory exists while a key is under it.
func (b BucketFS) MkdirAll(string) error { return nil }

// Rename is refused: the object-store committer never renames.
func (b BucketFS) Rename(o, n string) error {
	return fmt.Errorf("s3: rename %s to %s: an object store has no rename", b.at(o), b.at(n))
}

func (b BucketFS) RemoveAll(p string) error {
	objs, err := b.st.Walk(ctx, b.dirPrefix(p))
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := b.st.Delete(ctx, o.Loc); err != nil {
			return err
		}
	}
	if b.at(p).Key == "" {
		return nil
	}
	return b.st.Delete(ctx, b.at(p))
}

// Remove deletes a file; a directory is gone with its last file.
func (b BucketFS) Remove(p string) error { return b.st.Delete(ctx, b.at(p)) }

func (b BucketFS) WriteFile(p string, data []byte) error { return b.st.Put(ctx, b.at(p), data) }

func (b BucketFS) ReadFile(p string) ([]byte, error) { return b.st.Get(ctx, b.at(p)) }

func (b BucketFS) Walk(dir string) ([]string, error) {
	objs, err := b.st.Walk(ctx, b.dirPrefix(dir))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Loc.Path()
	}
	return out, nil
}

func (b BucketFS) Pending(dir string) ([]commit.Upload, error) {
	ups, err := b.st.Uploads(ctx, b.dirPrefix(dir))
	if err != nil {
		return nil, err
	}
	out := make([]commit.Upload, len(ups))
	for i, u := range ups {
		out[i] = commit.Upload{Path: u.Loc.Path(), UploadID: u.UploadID}
	}
	return out, nil
}

func (b BucketFS) Complete(u commit.Upload) error {
	return b.st.Complete(ctx, b.at(u.Path), u.UploadID, completedParts(u.Parts))
}

func (b BucketFS) AbortUpload(u commit.Upload) error {
	return b.st.Abort(ctx, b.at(u.Path), u.UploadID)
}
