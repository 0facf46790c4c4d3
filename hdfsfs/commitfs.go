package hdfsfs

import "github.com/ebb-am/ebb/commit"

// CommitFS is this NameNode as the file system DAG outputs are committed
// in (package commit).
func (f *FS) CommitFS() commit.FS { return commitFS{f} }

// Resolve is a commit.Resolver: hdfs:// URLs of this NameNode resolve to
// it, plain paths and file:// URLs to this machine's file system (as the
// worker resolves them), and any other location is an error.
func (f *FS) Resolve(location string) (commit.FS, string, error) {
	if _, ok := commit.LocalPath(location); ok {
		return commit.LocalResolver(location)
	}
	p, err := f.Path(location)
	if err != nil {
		return nil, "", err
	}
	return commitFS{f}, p, nil
}

type commitFS struct{ f *FS }

var _ commit.FS = commitFS{}

func (h commitFS) Stat(p string) (bool, error) {
	fi, err := h.f.c.Stat(p)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

func (h commitFS) ReadDir(dir string) ([]commit.Entry, error) {
	fis, err := h.f.c.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]commit.Entry, len(fis))
	for i, fi := range fis {
		out[i] = commit.Entry{Name: fi.Name(), Dir: fi.IsDir()}
	}
	return out, nil
}

func (h commitFS) MkdirAll(dir string) error { return h.f.c.MkdirAll(dir, 0o755) }

func (h commitFS) Rename(oldPath, newPath string) error { return h.f.c.Rename(oldPath, newPath) }

func (h commitFS) RemoveAll(p string) error { return h.f.RemoveAll(p) }

// Remove is HDFS's non-recursive delete: a non-empty directory stays.
func (h commitFS) Remove(p string) error { return h.f.c.Remove(p) }

func (h commitFS) WriteFile(p string, data []byte) error {
	_, err := h.f.WriteFile(p, data, 0o644)
	return err
}
