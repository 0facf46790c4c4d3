package traces

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRootIsFoundFromASubdirectory(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "repo", "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "repo", "go.mod"), []byte(modulePath+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A go.mod of another module in between is not the root.
	if err := os.WriteFile(filepath.Join(root, "repo", "a", "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Dir(sub)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "shared", "traces"); got != want {
		t.Fatalf("Dir = %s, want %s", got, want)
	}
	if _, err := Root(t.TempDir()); err == nil {
		t.Fatal("Root found a module where there is none")
	}
}
