package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/user"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/s3fs"
	"github.com/ebb-am/ebb/yarnrpc"
)

// fileSystem is the little the worker needs from where input splits live and
// where sink outputs are committed: a local directory or HDFS.
type fileSystem interface {
	Open(path string) (io.ReadSeekCloser, error)
	Create(path string) (io.WriteCloser, error)
	MkdirAll(path string) error
	// Rename replaces newPath if it exists, so a retried commit wins.
	Rename(oldPath, newPath string) error
	RemoveAll(path string) error
	// RemoveEmptyDir removes path only if it is an empty directory.
	RemoveEmptyDir(path string) error
}

// filesystems resolves "hdfs://host:port/path" and plain paths to a
// fileSystem, keeping one HDFS client per namenode because clients hold
// connections.
type filesystems struct {
	mu   lockorder.Mutex
	hdfs map[string]*hdfs.Client
	// retired clients were opened with tokens since replaced; attempts may
	// still read through them, so they close with the worker.
	retired []*hdfs.Client
	// s3 reaches s3:// and s3a:// locations (s3.go).
	s3 *s3fs.Store
}

// resolve returns the file system of location and the path inside it.
func (f *filesystems) resolve(location string) (fileSystem, string, error) {
	u, err := url.Parse(location)
	if err != nil || u.Scheme == "" || u.Scheme == "file" {
		if err == nil && u.Scheme == "file" {
			return localFS{}, u.Path, nil
		}
		return localFS{}, location, nil
	}
	if u.Scheme == "s3" || u.Scheme == "s3a" {
		st, err := f.s3Store()
		if err != nil {
			return nil, "", err
		}
		return s3Files{st}, location, nil
	}
	if u.Scheme != "hdfs" {
		return nil, "", fmt.Errorf("%s: unsupported scheme %q (use a local path, hdfs:// or s3://)", location, u.Scheme)
	}
	if u.Host == "" {
		return nil, "", fmt.Errorf("%s: hdfs:// needs a namenode host:port", location)
	}
	c, err := f.client(u.Host)
	if err != nil {
		return nil, "", err
	}
	return hdfsFS{c}, u.Path, nil
}

func (f *filesystems) client(namenode string) (*hdfs.Client, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.hdfs[namenode]; ok {
		return c, nil
	}
	c, err := dialHDFS(namenode)
	if err != nil {
		return nil, err
	}
	if f.hdfs == nil {
		f.hdfs = map[string]*hdfs.Client{}
	}
	f.hdfs[namenode] = c
	return c, nil
}

func (f *filesystems) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.hdfs {
		_ = c.Close()
	}
	for _, c := range f.retired {
		_ = c.Close()
	}
	f.hdfs, f.retired = nil, nil
}

// dialHDFS connects to a NameNode. On a secure cluster the container's
// token file (HADOOP_TOKEN_FILE_LOCATION, written by the NodeManager from
// the launch context) holds an HDFS delegation token: the worker has no
// Kerberos ticket and uses that. Otherwise SIMPLE, as the Hadoop user.
func dialHDFS(namenode string) (*hdfs.Client, error) {
	if path := os.Getenv("HADOOP_TOKEN_FILE_LOCATION"); path != "" {
		creds, err := yarnrpc.ReadCredentialsFile(path)
		if err != nil {
			return nil, fmt.Errorf("connecting to namenode %s: %w", namenode, err)
		}
		if _, ok := creds.TokenOfKind(yarnrpc.KindHDFSDelegationToken); ok {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			fs, err := hdfsfs.DialToken(ctx, "hdfs://"+namenode, creds)
			if err != nil {
				return nil, fmt.Errorf("connecting to namenode %s with the delegation token: %w", namenode, err)
			}
			return fs.Client(), nil
		}
	}
	c, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: []string{namenode}, User: hadoopUser(), NamenodeDialFunc: hdfsfs.NamenodeDialer()})
	if err != nil {
		return nil, fmt.Errorf("connecting to namenode %s: %w", namenode, err)
	}
	return c, nil
}

// hadoopUser follows the Hadoop client convention: HADOOP_USER_NAME, then
// the login user.
func hadoopUser() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}

type localFS struct{}

func (localFS) Open(path string) (io.ReadSeekCloser, error) { return os.Open(path) }
func (localFS) Create(path string) (io.WriteCloser, error)  { return os.Create(path) }
func (localFS) MkdirAll(path string) error                  { return os.MkdirAll(path, 0o755) }
func (localFS) Rename(oldPath, newPath string) error        { return os.Rename(oldPath, newPath) }
func (localFS) RemoveAll(path string) error                 { return os.RemoveAll(path) }
func (localFS) RemoveEmptyDir(path string) error            { return os.Remove(path) }

type hdfsFS struct{ c *hdfs.Client }

// replicatingCloser closes an HDFS file the way the Java client does,
// waiting out "replication in progress" (hdfsfs.CloseWriter).
type replicatingCloser struct{ *hdfs.FileWriter }

func (r replicatingCloser) Close() error { return hdfsfs.CloseWriter(r.FileWriter) }

func (h hdfsFS) Open(path string) (io.ReadSeekCloser, error) { return h.c.Open(path) }
func (h hdfsFS) Create(path string) (io.WriteCloser, error) {
	w, err := h.c.Create(path)
	if err != nil {
		return nil, err
	}
	return replicatingCloser{w}, nil
}
func (h hdfsFS) MkdirAll(path string) error       { return h.c.MkdirAll(path, 0o755) }
func (h hdfsFS) RemoveAll(path string) error      { return h.c.RemoveAll(path) }
func (h hdfsFS) RemoveEmptyDir(path string) error { return h.c.Remove(path) }

func (h hdfsFS) Rename(oldPath, newPath string) error {
	// HDFS refuses to rename onto an existing file; an earlier attempt of
	// the same task may have committed it, and the newest attempt wins.
	if err := h.c.Remove(newPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return h.c.Rename(oldPath, newPath)
}
