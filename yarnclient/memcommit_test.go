package yarnclient

import (
	"errors"
	"os"
	"strings"

	"github.com/ebb-am/ebb/commit"
)

// Resolve makes memStore's files a commit.FS for hdfs://nn:8020 URLs,
// enough to check an output; the client never promotes.
func (m *memStore) Resolve(location string) (commit.FS, string, error) {
	p, ok := strings.CutPrefix(location, "hdfs://nn:8020")
	if !ok {
		return nil, "", &commit.SchemeError{Location: location}
	}
	return memCommitFS{m}, p, nil
}

type memCommitFS struct{ m *memStore }

var errNotForClients = errors.New("memStore: the client only checks outputs")

func (f memCommitFS) Stat(p string) (bool, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if _, ok := f.m.files[p]; ok {
		return false, nil
	}
	if f.m.dirs[p] {
		return true, nil
	}
	for q := range f.m.files {
		if strings.HasPrefix(q, p+"/") {
			return true, nil
		}
	}
	return false, os.ErrNotExist
}

func (f memCommitFS) ReadDir(dir string) ([]commit.Entry, error) {
	if isDir, err := f.Stat(dir); err != nil || !isDir {
		return nil, os.ErrNotExist
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	seen := map[string]bool{}
	var out []commit.Entry
	for q := range f.m.files {
		rest, ok := strings.CutPrefix(q, dir+"/")
		if !ok {
			continue
		}
		name, _, nested := strings.Cut(rest, "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, commit.Entry{Name: name, Dir: nested})
		}
	}
	return out, nil
}

func (memCommitFS) MkdirAll(string) error          { return errNotForClients }
func (memCommitFS) Rename(string, string) error    { return errNotForClients }
func (memCommitFS) RemoveAll(string) error         { return errNotForClients }
func (memCommitFS) Remove(string) error            { return errNotForClients }
func (memCommitFS) WriteFile(string, []byte) error { return errNotForClients }
