package commit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LocalFS is this machine's file system.
type LocalFS struct{}

var _ FS = LocalFS{}

func (LocalFS) Stat(p string) (bool, error) {
	fi, err := os.Stat(filepath.FromSlash(p))
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

func (LocalFS) ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(des))
	for i, d := range des {
		out[i] = Entry{Name: d.Name(), Dir: d.IsDir()}
	}
	return out, nil
}

func (LocalFS) MkdirAll(dir string) error { return os.MkdirAll(filepath.FromSlash(dir), 0o755) }

func (LocalFS) Rename(oldPath, newPath string) error {
	return os.Rename(filepath.FromSlash(oldPath), filepath.FromSlash(newPath))
}

func (LocalFS) RemoveAll(p string) error { return os.RemoveAll(filepath.FromSlash(p)) }

func (LocalFS) Remove(p string) error { return os.Remove(filepath.FromSlash(p)) }

func (LocalFS) WriteFile(p string, data []byte) error {
	return os.WriteFile(filepath.FromSlash(p), data, 0o644)
}

// LocalResolver resolves plain paths (and file:// URLs) to LocalFS and
// refuses any other scheme, naming it.
func LocalResolver(location string) (FS, string, error) {
	if p, ok := LocalPath(location); ok {
		return LocalFS{}, p, nil
	}
	return nil, "", &SchemeError{Location: location}
}

// LocalPath is the path of a location on this machine: a plain path, or a
// file:// URL. ok is false for any other URL.
func LocalPath(location string) (p string, ok bool) {
	if rest, found := strings.CutPrefix(location, "file://"); found {
		return rest, true
	}
	if strings.Contains(location, "://") {
		return "", false
	}
	return filepath.ToSlash(location), true
}

// SchemeError: no file system this committer knows holds the location.
type SchemeError struct{ Location string }

func (e *SchemeError) Error() string {
	scheme, _, _ := strings.Cut(e.Location, "://")
	return fmt.Sprintf("output %s: cannot commit to a %s:// location here (use a local path, an hdfs:// or an s3:// URL)", e.Location, scheme)
}
