// Package hdfsfs is ebb's small HDFS toolbox on top of colinmarc/hdfs,
// and every adapter of ebb's ports onto HDFS: Lister (fsys's, for hdfs://
// inputs), the committer's FS and Resolve (commit's), RecoveryLog (the
// AM's recovery log, am/recovery's port, each segment a private file); the
// staging directory `ebb submit` fills (upload with the size and
// modification time YARN's LocalResources must quote exactly, private
// files, the shared binary, removal when the application ends); and
// dialling with SIMPLE auth, Kerberos or replaceable delegation Tokens.
// It never imports the AM (a test holds it).
package hdfsfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/fsys"
)

// FS is one NameNode, reached as user.
type FS struct {
	c        *hdfs.Client
	namenode string // host:port
	// retry, when set (SetRetry), is what each call that asks the
	// NameNode is made through; told hears of each retry.
	retry *Retry
	told  func(what string, err error, next time.Duration)
}

// SetRetry makes every call of f that asks the NameNode, but Rename (not
// safe to repeat) and Client's, wait out a NameNode that does not answer
// within r, and fail past it with an UnavailableError; told (may be nil)
// hears of each retry. Call it before f is used.
func (f *FS) SetRetry(r Retry, told func(what string, err error, next time.Duration)) {
	f.retry, f.told = &r, told
}

// Do runs op, which must be safe to repeat from its start, under f's
// retry (SetRetry), or once when f has none.
func (f *FS) Do(what string, op func() error) error {
	if f.retry == nil {
		return op()
	}
	var told func(error, time.Duration)
	if f.told != nil {
		told = func(err error, next time.Duration) { f.told(what, err, next) }
	}
	return atNameNode(f.retry.Do(context.Background(), what, op, told), f.namenode)
}

// Dial connects to the NameNode of defaultFS (hdfs://host:port) as user,
// with SIMPLE authentication (an insecure cluster).
func Dial(defaultFS, user string) (*FS, error) {
	host, err := namenodeOf(defaultFS)
	if err != nil {
		return nil, err
	}
	return open(host, hdfs.ClientOptions{Addresses: []string{host}, User: user})
}

func namenodeOf(defaultFS string) (string, error) {
	u, err := url.Parse(defaultFS)
	if err != nil || u.Scheme != "hdfs" || u.Host == "" {
		return "", fmt.Errorf("hdfsfs: fs.defaultFS %q is not hdfs://host:port", defaultFS)
	}
	return u.Host, nil
}

func open(host string, o hdfs.ClientOptions) (*FS, error) {
	o.NamenodeDialFunc = namenodeDialer(o.NamenodeDialFunc, NamenodeConnectTimeout, NamenodeCallTimeout)
	c, err := hdfs.NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("hdfsfs: connecting to %s: %w", host, err)
	}
	return &FS{c: c, namenode: host}, nil
}

// Client is the underlying colinmarc/hdfs client, for code that works
// with it directly (the worker's file access).
func (f *FS) Client() *hdfs.Client { return f.c }

// Close ends the connection.
func (f *FS) Close() error { return f.c.Close() }

// URL is the full hdfs:// URL of an absolute path on this NameNode.
func (f *FS) URL(p string) string { return "hdfs://" + f.namenode + p }

// Path takes an hdfs:// URL (of this NameNode) or a plain absolute path
// and returns the path.
func (f *FS) Path(location string) (string, error) {
	if !strings.Contains(location, "://") {
		return location, nil
	}
	u, err := url.Parse(location)
	if err != nil || u.Scheme != "hdfs" {
		return "", fmt.Errorf("hdfsfs: %q is not an hdfs:// URL", location)
	}
	if u.Host != "" && u.Host != f.namenode {
		return "", fmt.Errorf("hdfsfs: %q is on another NameNode than %s", location, f.namenode)
	}
	return u.Path, nil
}

// FileStamp is what a YARN LocalResource must quote about a file.
type FileStamp struct {
	URL     string
	Size    int64
	ModTime int64 // ms since the epoch, as HDFS keeps it
}

// Stamp stats a file.
func (f *FS) Stamp(p string) (FileStamp, error) {
	var fi os.FileInfo
	err := f.Do("stat "+p, func() (err error) { fi, err = f.c.Stat(p); return err })
	if err != nil {
		return FileStamp{}, fmt.Errorf("hdfsfs: %w", err)
	}
	return FileStamp{URL: f.URL(p), Size: fi.Size(), ModTime: fi.ModTime().UnixMilli()}, nil
}

// MkdirPrivate creates dir with mode 0700. Parents it has to create get
// HDFS's usual 0755 (less the server's umask): a first submit on a fresh
// file system must not make /user or /user/<name> private, which would lock
// other users out of /user and keep the shared ebb binary from being PUBLIC.
// Privacy comes from dir itself, the staging or history directory.
func (f *FS) MkdirPrivate(dir string) error {
	return f.Do("mkdir "+dir, func() error {
		if err := f.c.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("hdfsfs: mkdir %s: %w", dir, err)
		}
		if err := f.c.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("hdfsfs: chmod %s: %w", dir, err)
		}
		return nil
	})
}

// Upload copies a local file to p with the given mode and returns its stamp.
func (f *FS) Upload(local, p string, mode os.FileMode) (FileStamp, error) {
	var st FileStamp
	err := f.Do("writing "+p, func() error {
		in, err := os.Open(local)
		if err != nil {
			return err
		}
		defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
		st, err = f.write(p, in, mode)
		return err
	})
	return st, err
}

// WriteFile writes data to p with the given mode (e.g. 0600 for a secret).
// A write tried again replaces what an earlier try left.
func (f *FS) WriteFile(p string, data []byte, mode os.FileMode) (FileStamp, error) {
	var st FileStamp
	err := f.Do("writing "+p, func() (err error) {
		st, err = f.write(p, strings.NewReader(string(data)), mode)
		return err
	})
	return st, err
}

func (f *FS) write(p string, r io.Reader, mode os.FileMode) (FileStamp, error) {
	_ = f.c.Remove(p)       // replace: HDFS refuses to create over a file
	w, err := f.c.Create(p) // the server's replication and block size
	if err != nil {
		return FileStamp{}, fmt.Errorf("hdfsfs: create %s: %w", p, err)
	}
	if _, err := io.Copy(w, r); err != nil {
		_ = w.Close() // the copy already failed; that error is the one to report
		return FileStamp{}, fmt.Errorf("hdfsfs: write %s: %w", p, err)
	}
	if err := CloseWriter(w); err != nil {
		return FileStamp{}, fmt.Errorf("hdfsfs: close %s: %w", p, err)
	}
	if err := f.c.Chmod(p, mode); err != nil {
		return FileStamp{}, fmt.Errorf("hdfsfs: chmod %s: %w", p, err)
	}
	fi, err := f.c.Stat(p)
	if err != nil {
		return FileStamp{}, fmt.Errorf("hdfsfs: %w", err)
	}
	return FileStamp{URL: f.URL(p), Size: fi.Size(), ModTime: fi.ModTime().UnixMilli()}, nil
}

// CloseWriter closes a new file, calling again while the NameNode says
// the last block is still replicating (as the Java client does, with
// backoff): the file's modification time is final only once it is closed,
// a LocalResource must quote that time, and a worker committing a sink's
// output must not fail an attempt for a replication that is merely slow.
func CloseWriter(w *hdfs.FileWriter) error {
	wait := 20 * time.Millisecond
	for i := 0; ; i++ {
		err := w.Close()
		if err == nil || !hdfs.IsErrReplicating(err) || i == 12 {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, time.Second)
	}
}

// ReadFile reads a whole file.
func (f *FS) ReadFile(p string) ([]byte, error) {
	var b []byte
	err := f.Do("reading "+p, func() (err error) { b, err = f.c.ReadFile(p); return err })
	if err != nil {
		return nil, fmt.Errorf("hdfsfs: %w", err)
	}
	return b, nil
}

// Exists says whether p exists.
func (f *FS) Exists(p string) (bool, error) {
	err := f.Do("stat "+p, func() error { _, err := f.c.Stat(p); return err })
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Entry is one name in a directory.
type Entry struct {
	Name    string
	IsDir   bool
	ModTime time.Time
}

// List names what is in dir; a missing dir is empty.
func (f *FS) List(dir string) ([]Entry, error) {
	var fis []os.FileInfo
	err := f.Do("listing "+dir, func() (err error) { fis, err = f.c.ReadDir(dir); return err })
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hdfsfs: list %s: %w", dir, err)
	}
	out := make([]Entry, 0, len(fis))
	for _, fi := range fis {
		out = append(out, Entry{Name: fi.Name(), IsDir: fi.IsDir(), ModTime: fi.ModTime()})
	}
	return out, nil
}

// RemoveAll removes p and everything under it; a missing p is fine.
func (f *FS) RemoveAll(p string) error {
	err := f.Do("removing "+p, func() error { return f.c.RemoveAll(p) })
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("hdfsfs: remove %s: %w", p, err)
	}
	return nil
}

// Lister lists hdfs:// inputs for the AM, as full URLs so that workers
// resolve them the same way; other paths go to the local file system.
type Lister struct{ FS *FS }

var _ fsys.Lister = Lister{}

// List expands a path or a glob (in the last element) into files, walking
// directories; like the local lister it skips hidden and _-prefixed files
// (_SUCCESS, .crc).
func (l Lister) List(pattern string) ([]fsys.FileInfo, error) {
	if !strings.HasPrefix(pattern, "hdfs://") {
		return fsys.LocalFS{}.List(pattern)
	}
	p, err := l.FS.Path(pattern)
	if err != nil {
		return nil, err
	}
	var out []fsys.FileInfo
	err = l.FS.Do("listing "+pattern, func() (err error) { out, err = l.list(p); return err })
	return out, err
}

// list is one try of List.
func (l Lister) list(p string) ([]fsys.FileInfo, error) {
	var roots []string
	dir, base := path.Split(p)
	if strings.ContainsAny(base, "*?[") {
		entries, err := l.FS.c.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("hdfsfs: %w", err)
		}
		for _, e := range entries {
			if ok, _ := path.Match(base, e.Name()); ok {
				roots = append(roots, path.Join(dir, e.Name()))
			}
		}
	} else if _, err := l.FS.c.Stat(p); err == nil {
		roots = []string{p}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("hdfsfs: %w", err)
	}
	var out []fsys.FileInfo
	for _, r := range roots {
		err := l.FS.c.Walk(r, func(q string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			name := fi.Name()
			if q != r && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				if fi.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !fi.IsDir() {
				out = append(out, fsys.FileInfo{Path: l.FS.URL(q), Size: fi.Size()})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("hdfsfs: listing %s: %w", r, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
