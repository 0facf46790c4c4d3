package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func TestCommitNamesFilesByTaskIndex(t *testing.T) {
	out := t.TempDir()
	for name, body := range map[string]string{"part": "p", "stats.json": "{}", "sub/nested": "n"} {
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "result")
	// An earlier attempt of the same task committed a stale file.
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "part-00042"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := commitOutputs(context.Background(), &filesystems{}, out, dst, "att_1", 42, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = filepath.Walk(dst, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			rel, _ := filepath.Rel(dst, p)
			got = append(got, rel)
		}
		return err
	})
	sort.Strings(got)
	want := []string{"part-00042", "stats.json-00042", "sub/nested-00042"}
	if len(got) != len(want) {
		t.Fatalf("committed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("committed %v, want %v", got, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "part-00042")); string(b) != "p" {
		t.Errorf("part-00042 = %q, want the new attempt's content", b)
	}
	if _, err := os.Stat(filepath.Join(dst, "_temporary")); !os.IsNotExist(err) {
		t.Errorf("_temporary should be gone: %v", err)
	}
}

// An attempt killed before its files are renamed leaves nothing in the
// commit directory: its DAG has ended and the AM removes the staging
// directory, which must not be refilled behind it.
func TestKilledCommitLeavesNothing(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "part"), []byte("p"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "staging")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	killed := errors.New("killed: DAG dag_0001 ended")
	cancel(killed)
	if err := commitOutputs(ctx, &filesystems{}, out, dst, "att_1", 0, nil); !errors.Is(err, killed) {
		t.Fatalf("commit of a killed attempt = %v, want its cause", err)
	}
	if es, err := os.ReadDir(dst); err != nil || len(es) != 0 {
		t.Errorf("the killed commit left %v (%v) in %s", es, err, dst)
	}
}

func TestCommitRejectsUnknownScheme(t *testing.T) {
	if err := commitOutputs(context.Background(), &filesystems{}, t.TempDir(), "gs://bucket/x", "a", 0, nil); err == nil {
		t.Error("commit to gs:// succeeded; want an error naming the scheme")
	}
}

func TestParseStat(t *testing.T) {
	// Field 2 may hold spaces and parentheses.
	line := "1234 (my (odd) cmd) S 1 777 777 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 100 10000000 250 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0"
	g, rss, ok := parseStat([]byte(line))
	if !ok || g != 777 || rss != 250 {
		t.Errorf("parseStat = %d %d %v, want 777 250 true", g, rss, ok)
	}
	if _, _, ok := parseStat([]byte("garbage")); ok {
		t.Error("parseStat accepted garbage")
	}
}
