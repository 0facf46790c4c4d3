package hdfsfs

import (
	"fmt"
	"path"
	"testing"

	"github.com/ebb-am/ebb/internal/committest"
)

type hdfsFiles struct{ f *FS }

func (h hdfsFiles) WriteFile(p string, data []byte) error {
	if err := h.f.c.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	_, err := h.f.WriteFile(p, data, 0o644)
	return err
}

func (h hdfsFiles) ReadFile(p string) ([]byte, error) { return h.f.ReadFile(p) }

// The committer's scenarios on the minicluster's NameNode.
func TestCommitFS(t *testing.T) {
	fs, dir := dial(t)
	n := 0
	committest.Run(t, committest.Target{
		FS:    fs.CommitFS(),
		Files: hdfsFiles{fs},
		Root: func(*testing.T) string {
			n++
			return fmt.Sprintf("%s/out%d", dir, n)
		},
		Location: fs.URL,
	})
}

func TestResolve(t *testing.T) {
	fs, dir := dial(t)
	if _, p, err := fs.Resolve(fs.URL(dir + "/out")); err != nil || p != dir+"/out" {
		t.Errorf("Resolve(this NameNode's URL) = %q, %v", p, err)
	}
	if cfs, p, err := fs.Resolve("/tmp/out"); err != nil || p != "/tmp/out" || cfs == fs.CommitFS() {
		t.Errorf("Resolve(a plain path) = %v %q, %v; want the local file system", cfs, p, err)
	}
	if _, _, err := fs.Resolve("hdfs://elsewhere:8020/out"); err == nil {
		t.Error("another NameNode's URL resolved to this one")
	}
}
