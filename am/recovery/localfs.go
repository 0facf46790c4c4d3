package recovery

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// LocalFS keeps a recovery log in a local directory (the local world, and
// tests). Create writes a temporary file, syncs it and renames it into
// place, so a file either exists whole or not at all.
type LocalFS struct{}

var _ FS = LocalFS{}

// Create implements FS.
func (LocalFS) Create(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp := p + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close() // the write error is the one to report
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// ReadFile implements FS.
func (LocalFS) ReadFile(p string) ([]byte, error) { return os.ReadFile(p) }

// List implements FS.
func (LocalFS) List(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Remove implements FS.
func (LocalFS) Remove(p string) error { return os.Remove(p) }
