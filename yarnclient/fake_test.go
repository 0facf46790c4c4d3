package yarnclient

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/yarnrpc"
)

// fakeRM is a scripted ResourceManager that records what it was asked.
// Report answers reports in turn and repeats the last one.
type fakeRM struct {
	mu        sync.Mutex
	id        yarn.AppID
	max       yarn.Resource
	newAppErr error
	submitErr error
	reports   []yarn.AppReport
	// byID, when set, answers reports by application id; an id not in it
	// is unknown to this RM (ApplicationNotFoundException).
	byID      map[yarn.AppID]yarn.AppReport
	apps      []yarn.AppReport
	appsErr   error
	submitted []yarn.AppSpec
	labels    yarn.Labels
	kills     int
	closed    bool
}

func newFakeRM() *fakeRM {
	return &fakeRM{id: yarn.AppID{ClusterTS: 1700000000000, ID: 7}, max: yarn.Resource{MemoryMB: 8192, VCores: 8}}
}

func (f *fakeRM) NewApp(context.Context) (yarn.AppID, yarn.Resource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.id, f.max, f.newAppErr
}

func (f *fakeRM) Submit(_ context.Context, s yarn.AppSpec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submitted = append(f.submitted, s)
	return f.submitErr
}

func (f *fakeRM) Report(_ context.Context, id yarn.AppID) (yarn.AppReport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byID != nil {
		r, ok := f.byID[id]
		if !ok {
			return yarn.AppReport{}, &yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException",
				Message: "Application with id '" + id.String() + "' doesn't exist in RM."}
		}
		r.ID = id
		return r, nil
	}
	if len(f.reports) == 0 {
		return yarn.AppReport{}, errors.New("no such application")
	}
	r := f.reports[0]
	if len(f.reports) > 1 {
		f.reports = f.reports[1:]
	}
	r.ID = id
	return r, nil
}

func (f *fakeRM) Apps(_ context.Context, types []string, states []yarn.AppState, users []string) ([]yarn.AppReport, error) {
	if len(types) != 1 || types[0] != AppType || len(states) != 1 || states[0] != yarn.StateRunning || len(users) != 1 {
		return nil, errors.New("asked for the wrong applications")
	}
	return f.apps, f.appsErr
}

func (f *fakeRM) Labels(context.Context) (yarn.Labels, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.labels, nil
}

func (f *fakeRM) Kill(context.Context, yarn.AppID, string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kills++
	return true, nil
}

func (f *fakeRM) Close() error { f.closed = true; return nil }

// memStore is a staging file system in memory.
type memStore struct {
	mu      sync.Mutex
	files   map[string][]byte
	dirs    map[string]bool
	removed []string
	closes  int
	mtime   map[string]time.Time // List's ModTime by path (zero: long ago)
	modes   map[string]os.FileMode
	uploads []string // Upload's destinations, in order
}

func newMemStore() *memStore {
	return &memStore{files: map[string][]byte{}, dirs: map[string]bool{}, modes: map[string]os.FileMode{}}
}

func (m *memStore) MkdirPrivate(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dirs[dir] = true
	m.modes[dir] = 0o700
	return nil
}

func (m *memStore) Upload(local, p string, mode os.FileMode) (hdfsfs.FileStamp, error) {
	b, err := os.ReadFile(local)
	if err != nil {
		return hdfsfs.FileStamp{}, err
	}
	m.mu.Lock()
	m.uploads = append(m.uploads, p)
	m.mu.Unlock()
	return m.WriteFile(p, b, mode)
}

func (m *memStore) WriteFile(p string, data []byte, mode os.FileMode) (hdfsfs.FileStamp, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[p] = append([]byte(nil), data...)
	m.modes[p] = mode
	return hdfsfs.FileStamp{URL: m.URL(p), Size: int64(len(data)), ModTime: 1}, nil
}

func (m *memStore) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[p]
	if !ok {
		return nil, os.ErrNotExist
	}
	return b, nil
}

func (m *memStore) RemoveAll(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removed = append(m.removed, p)
	for f := range m.files {
		if strings.HasPrefix(f, p+"/") {
			delete(m.files, f)
		}
	}
	delete(m.dirs, p)
	return nil
}

func (m *memStore) List(dir string) ([]hdfsfs.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	var out []hdfsfs.Entry
	add := func(p string, isDir bool) {
		rest, ok := strings.CutPrefix(p, dir+"/")
		if !ok || rest == "" {
			return
		}
		name, sub, nested := strings.Cut(rest, "/")
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, hdfsfs.Entry{Name: name, IsDir: isDir || nested && sub != "", ModTime: m.mtime[dir+"/"+name]})
	}
	for d := range m.dirs {
		add(d, true)
	}
	for f := range m.files {
		add(f, false)
	}
	return out, nil
}

func (m *memStore) URL(p string) string { return "hdfs://nn:8020" + p }

func (m *memStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closes++
	return nil
}

// testConf is a client configuration naming an RM, with sets on top.
func testConf(t *testing.T, sets ...string) *conf.Config {
	t.Helper()
	kv := map[string]string{"yarn.resourcemanager.address": "rm:8032", "fs.defaultFS": "hdfs://nn:8020"}
	for i := 0; i+1 < len(sets); i += 2 {
		kv[sets[i]] = sets[i+1]
	}
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: kv})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testClient is a Client of user alice over rm and fs, staging a small
// fake binary.
func testClient(t *testing.T, c *conf.Config, rm *fakeRM, fs *memStore) *Client {
	t.Helper()
	bin := t.TempDir() + "/ebb"
	if err := os.WriteFile(bin, []byte("#!ebb"), 0o700); err != nil {
		t.Fatal(err)
	}
	yc, err := New(Options{Conf: c, User: "alice", Binary: bin, RM: rm, DialFS: func() (Store, error) { return fs, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return yc
}
