package task

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// newTestContext lays out an attempt directory with the given input files
// (path under input/ → content) and outgoing edges.
func newTestContext(t testing.TB, inputs map[string]string, outs ...Output) *Context {
	t.Helper()
	dir := t.TempDir()
	c := &Context{
		DAGID: "d1", Vertex: "v", AttemptID: "a1", Parallelism: 1,
		WorkDir: dir, InputDir: filepath.Join(dir, "input"), OutputDir: filepath.Join(dir, "output"),
		Outputs: outs, ProgressFile: filepath.Join(dir, "progress"),
	}
	for name, body := range inputs {
		p := filepath.Join(c.InputDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(c.OutputDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return c
}

func readOut(t *testing.T, c *Context, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.OutputDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// partitionLines reads output/<consumer>/0..n-1 as lists of lines.
func partitionLines(t *testing.T, c *Context, consumer string, n int) [][]string {
	t.Helper()
	out := make([][]string, n)
	for p := range n {
		body := readOut(t, c, filepath.Join(consumer, strconv.Itoa(p)))
		if body != "" {
			out[p] = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		}
	}
	entries, _ := os.ReadDir(filepath.Join(c.OutputDir, consumer))
	if len(entries) != n {
		t.Errorf("%s has %d partition files, want %d", consumer, len(entries), n)
	}
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
