package commit_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/internal/committest"
)

type localFiles struct{}

func (localFiles) WriteFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func (localFiles) ReadFile(p string) ([]byte, error) { return os.ReadFile(p) }

func TestLocalFS(t *testing.T) {
	committest.Run(t, committest.Target{
		FS:       commit.LocalFS{},
		Files:    localFiles{},
		Root:     func(t *testing.T) string { return filepath.Join(t.TempDir(), "out") },
		Location: func(p string) string { return p },
	})
}

func TestStaging(t *testing.T) {
	for _, c := range []struct{ output, want string }{
		{"/data/out", "/data/out/_temporary/ab12"},
		{"/data/out/", "/data/out/_temporary/ab12"},
		// path.Join would turn hdfs:// into hdfs:/.
		{"hdfs://nn:8020/out", "hdfs://nn:8020/out/_temporary/ab12"},
	} {
		if got := commit.Staging(c.output, "ab12"); got != c.want {
			t.Errorf("Staging(%q) = %q, want %q", c.output, got, c.want)
		}
	}
	if a, b := commit.NewStagingID(), commit.NewStagingID(); a == b || len(a) != 16 {
		t.Errorf("NewStagingID gave %q and %q: want two different 16-digit ids", a, b)
	}
}

func TestLocalResolver(t *testing.T) {
	for _, c := range []struct{ loc, want string }{
		{"/a/b", "/a/b"}, {"rel/dir", "rel/dir"}, {"file:///a/b", "/a/b"},
	} {
		_, p, err := commit.LocalResolver(c.loc)
		if err != nil || p != c.want {
			t.Errorf("LocalResolver(%q) = %q, %v; want %q", c.loc, p, err, c.want)
		}
	}
	var se *commit.SchemeError
	if _, _, err := commit.LocalResolver("s3://bucket/out"); !errors.As(err, &se) {
		t.Errorf("s3:// resolved: %v", err)
	}
}

func TestOverwriteOfARootIsRefused(t *testing.T) {
	c := commit.New(commit.LocalResolver)
	if _, err := c.Check("/", true); err == nil {
		t.Error("Check(\"/\", overwrite) passed: promotion would empty the file system")
	}
}
