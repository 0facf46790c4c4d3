package hdfsfs

import (
	"fmt"
	"os/user"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// Against the minicluster's real NameNode.
func dial(t *testing.T) (*FS, string) {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Dial(testcluster.DefaultFS(t), u.Username)
	if err != nil {
		t.Fatal(err)
	}
	dir := fmt.Sprintf("/user/%s/hdfsfs-test/%d", u.Username, time.Now().UnixNano())
	t.Cleanup(func() {
		fs.RemoveAll(dir)
		fs.Close()
	})
	return fs, dir
}

func TestStagingFiles(t *testing.T) {
	fs, dir := dial(t)
	if err := fs.MkdirPrivate(dir + "/staging"); err != nil {
		t.Fatal(err)
	}
	fi, err := fs.c.Stat(dir + "/staging")
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("staging dir mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	// The parents it made (dir) stay searchable by others: a first submit
	// must not make /user/<name> private.
	if pi, err := fs.c.Stat(dir); err != nil || pi.Mode().Perm()&0o001 == 0 {
		t.Fatalf("parent %s mode %v (%v): want others to search it", dir, pi.Mode().Perm(), err)
	}
	st, err := fs.WriteFile(dir+"/staging/secret", []byte("s3cret\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ = fs.c.Stat(dir + "/staging/secret")
	// The stamp is what HDFS says, to the millisecond: a LocalResource
	// quoting anything else is refused by the NodeManager.
	if st.Size != 7 || st.ModTime != fi.ModTime().UnixMilli() || fi.Mode().Perm() != 0o600 || st.URL != fs.URL(dir+"/staging/secret") {
		t.Errorf("stamp %+v; HDFS says size %d mtime %d mode %v", st, fi.Size(), fi.ModTime().UnixMilli(), fi.Mode().Perm())
	}
	// Writing again replaces the file.
	if _, err := fs.WriteFile(dir+"/staging/secret", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(dir + "/staging/secret"); err != nil || string(b) != "new" {
		t.Errorf("read back %q, %v", b, err)
	}
	if err := fs.RemoveAll(dir + "/staging"); err != nil {
		t.Fatal(err)
	}
	if ok, err := fs.Exists(dir + "/staging"); ok || err != nil {
		t.Errorf("staging dir still there (%v)", err)
	}
	if err := fs.RemoveAll(dir + "/staging"); err != nil {
		t.Errorf("removing a missing dir: %v", err)
	}
}

func TestListerGlobsWalksAndSkipsMarkers(t *testing.T) {
	fs, dir := dial(t)
	if err := fs.MkdirPrivate(dir + "/in/sub"); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"in/a.txt": "aa", "in/b.log": "bbb", "in/sub/c.txt": "c", "in/_SUCCESS": "", "in/.a.crc": "x"} {
		if _, err := fs.WriteFile(dir+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := Lister{FS: fs}
	list := func(p string) map[string]int64 {
		t.Helper()
		files, err := l.List(p)
		if err != nil {
			t.Fatalf("List(%s): %v", p, err)
		}
		out := map[string]int64{}
		for _, f := range files {
			out[f.Path] = f.Size
		}
		return out
	}
	u := func(p string) string { return fs.URL(dir + "/" + p) }
	if got, want := list(u("in")), map[string]int64{u("in/a.txt"): 2, u("in/b.log"): 3, u("in/sub/c.txt"): 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("a directory: got %v, want %v", got, want)
	}
	if got, want := list(u("in/*.txt")), map[string]int64{u("in/a.txt"): 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("a glob: got %v, want %v", got, want)
	}
	if got := list(u("in/nothing*")); len(got) != 0 {
		t.Errorf("a glob matching nothing: %v", got)
	}
	if _, err := l.List("hdfs://elsewhere:1" + dir); err == nil {
		t.Errorf("another NameNode's path was listed")
	}
}

// TestList names files and directories with their modification times, and
// a directory that does not exist is empty, not an error (ebb clean on a
// user who never submitted).
func TestList(t *testing.T) {
	fs, dir := dial(t)
	if err := fs.MkdirPrivate(dir + "/sub"); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Minute)
	if _, err := fs.WriteFile(dir+"/f", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	es, err := fs.List(dir)
	if err != nil || len(es) != 2 {
		t.Fatalf("List = %+v, %v; want f and sub", es, err)
	}
	got := map[string]bool{}
	for _, e := range es {
		got[e.Name] = e.IsDir
		if e.ModTime.Before(before) {
			t.Errorf("%s modified at %s, before the test began", e.Name, e.ModTime)
		}
	}
	if !reflect.DeepEqual(got, map[string]bool{"f": false, "sub": true}) {
		t.Errorf("List names %v", got)
	}
	if es, err := fs.List(dir + "/missing"); err != nil || len(es) != 0 {
		t.Errorf("List of a missing dir = %v, %v", es, err)
	}
}
