package hdfsfs

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/ebb-am/ebb/am/recovery"
)

// RecoveryLog is the recovery log's port on HDFS (checked here: the
// package itself does not import the AM).
var _ recovery.FS = RecoveryLog{}

// Against the minicluster: segments are private files; List names the
// files only (a directory in the log's is no segment); Remove removes.
func TestRecoveryLogSegments(t *testing.T) {
	fs, dir := dial(t)
	if err := fs.MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	l := RecoveryLog{FS: fs}
	for _, seg := range []string{"seg-00001", "seg-00002"} {
		if err := l.Create(dir+"/"+seg, []byte("records of "+seg)); err != nil {
			t.Fatal(err)
		}
	}
	if err := fs.MkdirPrivate(dir + "/not-a-segment"); err != nil {
		t.Fatal(err)
	}
	names, err := l.List(dir)
	if err != nil || !reflect.DeepEqual(names, []string{"seg-00001", "seg-00002"}) {
		t.Fatalf("List = %q, %v; want the two segments only", names, err)
	}
	if b, err := l.ReadFile(dir + "/seg-00002"); err != nil || string(b) != "records of seg-00002" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if info, err := fs.Info(dir + "/seg-00001"); err != nil || info.Perm != 0o600 {
		t.Errorf("a segment's mode: %+v, %v; want private (0600)", info, err)
	}
	if err := l.Remove(dir + "/seg-00001"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ReadFile(dir + "/seg-00001"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a removed segment reads %v, want not exist", err)
	}
}
