package yarnclient

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ebb-am/ebb/hdfsfs"
)

// memStore's side of sharedStore: permission bits (files 0644 and
// directories 0755 unless set), and a rename that, like the NameNode's,
// never replaces a directory holding anything.

func (m *memStore) Info(p string) (hdfsfs.Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.files[p]; ok {
		return hdfsfs.Info{FileStamp: hdfsfs.FileStamp{URL: m.URL(p), Size: int64(len(b)), ModTime: 1}, Perm: m.mode(p, 0o644)}, nil
	}
	if m.isDir(p) {
		return hdfsfs.Info{FileStamp: hdfsfs.FileStamp{URL: m.URL(p)}, IsDir: true, Perm: m.mode(p, 0o755)}, nil
	}
	return hdfsfs.Info{}, fmt.Errorf("memstore: %s: %w", p, os.ErrNotExist)
}

func (m *memStore) mode(p string, dflt os.FileMode) os.FileMode {
	if mode, ok := m.modes[p]; ok {
		return mode
	}
	return dflt
}

// isDir: made, or above something made. Callers hold m.mu.
func (m *memStore) isDir(p string) bool {
	if p == "/" || m.dirs[p] {
		return true
	}
	for q := range m.files {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	for q := range m.dirs {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	return false
}

func (m *memStore) MkdirMode(dir string, mode os.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dirs[dir] = true
	m.modes[dir] = mode
	return nil
}

func (m *memStore) Chmod(p string, mode os.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.modes[p] = mode
	return nil
}

func (m *memStore) Rename(oldPath, newPath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for q := range m.files {
		if strings.HasPrefix(q, newPath+"/") {
			return fmt.Errorf("memstore: rename %s to %s: destination directory is not empty", oldPath, newPath)
		}
	}
	move := func(q string) (string, bool) {
		if q == oldPath {
			return newPath, true
		}
		if rest, ok := strings.CutPrefix(q, oldPath+"/"); ok {
			return newPath + "/" + rest, true
		}
		return "", false
	}
	for q, b := range m.files {
		if to, ok := move(q); ok {
			delete(m.files, q)
			m.files[to] = b
		}
	}
	for q := range m.dirs {
		if to, ok := move(q); ok {
			delete(m.dirs, q)
			m.dirs[to] = true
		}
	}
	for q, mode := range m.modes {
		if to, ok := move(q); ok {
			delete(m.modes, q)
			m.modes[to] = mode
		}
	}
	return nil
}

func (m *memStore) Path(location string) (string, error) {
	if !strings.Contains(location, "://") {
		return location, nil
	}
	p, ok := strings.CutPrefix(location, "hdfs://nn:8020")
	if !ok {
		return "", errors.New("memstore: not on hdfs://nn:8020")
	}
	return p, nil
}
