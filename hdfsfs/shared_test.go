package hdfsfs

import (
	"errors"
	"os"
	"testing"
)

// What the shared ebb binary relies on, against the real NameNode: a
// directory's mode as set, Info's permission bits, and a rename that
// publishes a directory but never replaces one holding a file.
func TestSharedDirectoryOperations(t *testing.T) {
	fs, dir := dial(t)
	if err := fs.MkdirMode(dir+"/lib", 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := fs.Info(dir + "/lib")
	if err != nil || !info.IsDir || info.Perm != 0o755 {
		t.Fatalf("lib: %+v, %v; want a 0755 directory", info, err)
	}
	if _, err := fs.Info(dir + "/nothing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Info of a missing path: %v, want os.ErrNotExist", err)
	}
	publish := func(tmp, content string) error {
		if err := fs.MkdirMode(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.WriteFile(tmp+"/ebb", []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return fs.Rename(tmp, dir+"/lib/sum")
	}
	if err := publish(dir+"/lib/.upload-1", "first"); err != nil {
		t.Fatal(err)
	}
	first, err := fs.Info(dir + "/lib/sum/ebb")
	if err != nil || first.Size != 5 || first.Perm != 0o755 || first.IsDir {
		t.Fatalf("published: %+v, %v", first, err)
	}
	if err := publish(dir+"/lib/.upload-2", "second"); err == nil {
		t.Errorf("a rename replaced a directory holding a file")
	}
	if b, _ := fs.ReadFile(dir + "/lib/sum/ebb"); string(b) != "first" {
		t.Errorf("the published file now holds %q", b)
	}
	if err := fs.Chmod(dir+"/lib", 0o700); err != nil {
		t.Fatal(err)
	}
	if info, _ := fs.Info(dir + "/lib"); info.Perm != 0o700 {
		t.Errorf("after Chmod 0700: %s", info.Perm)
	}
}
