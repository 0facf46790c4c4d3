package streaming

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// GlobDirs, which ebb streaming expands HDFS inputs with, against Go's
// filepath.Glob over the same local tree: a glob in any element, several,
// a file matched before the last element, names that do not exist.
func TestGlobDirsMatchesEveryElement(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"logs/2024-01/a.txt", "logs/2024-01/b.log", "logs/2024-02/a.txt", "logs/2025-01/c.txt",
		"logs/x/a.txt", "logs/.hidden/a.txt", "other/2024-01/a.txt", "file"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	readDir := func(dir string) ([]string, error) {
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return nil, nil
		}
		des, err := os.ReadDir(dir)
		var names []string
		for _, d := range des {
			names = append(names, d.Name())
		}
		return names, err
	}
	exists := func(p string) (bool, error) {
		_, err := os.Stat(p)
		if errors.Is(err, iofs.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	for _, pat := range []string{"logs/2024-*/a.txt", "*/2024-0?/*.txt", "logs/*/a.txt", "logs/202[45]-01/*", "*/*/*",
		"logs/2024-01/*.log", "file/*", "nothere/*/a.txt", "logs/2024-01/a.txt", "logs/*/nothere.txt", "*"} {
		want, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		got, err := GlobDirs(filepath.Join(root, pat), readDir, exists)
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, filepath.Glob %q", pat, got, want)
		}
	}
}
