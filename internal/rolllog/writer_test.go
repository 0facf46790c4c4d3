package rolllog

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Writes of 4 bytes into files of at most 10: two writes fit (8), the
// third rolls. Ten writes: pieces 1..4 hold 8 bytes each, the current file
// the last 2 writes; Keep 2 leaves pieces 3 and 4.
func TestRollsBySizeAndKeeps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "worker.log")
	w, err := Open(path, Roll{MaxBytes: 10, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := w.Write([]byte{'a' + byte(i), 'b', 'c', '\n'}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"worker.log", "worker.log.0003", "worker.log.0004"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	// piece 3 is writes 5 and 6 (e, f); piece 4 is g, h; current is i, j.
	for name, want := range map[string]string{"worker.log.0003": "ebc\nfbc\n", "worker.log.0004": "gbc\nhbc\n", "worker.log": "ibc\njbc\n"} {
		if got := read(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// A write larger than MaxBytes goes whole into a fresh file; an empty file
// never rolls (no empty pieces).
func TestBigWriteIsNotSplit(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(filepath.Join(dir, "am.log"), Roll{MaxBytes: 4, Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	big := strings.Repeat("x", 9)
	for _, s := range []string{big, big} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"am.log", "am.log.0001"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

// A second process in the same directory numbers after the pieces there,
// and a piece deleted by someone else (the NodeManager, once uploaded)
// does not stop pruning.
func TestReopenContinuesNumbering(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "worker.log")
	for _, n := range []string{"worker.log.0007", "worker.log.0002", "worker.log.x", "other.log.0009"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(path, Roll{MaxBytes: 3, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for range 2 {
		if _, err := w.Write([]byte("ab\n")); err != nil {
			t.Fatal(err)
		}
	}
	// one roll: piece 8; keep 2 of {2, 7, 8} deletes 2.
	want := []string{"other.log.0009", "worker.log", "worker.log.0007", "worker.log.0008", "worker.log.x"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

func TestNoRollWhenMaxBytesZero(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(filepath.Join(dir, "worker.log"), Roll{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for range 100 {
		if _, err := w.Write([]byte("line\n")); err != nil {
			t.Fatal(err)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"worker.log"}) {
		t.Fatalf("files %v, want only worker.log", got)
	}
}

func TestOpenRejectsBadRoll(t *testing.T) {
	for _, r := range []Roll{{MaxBytes: -1, Keep: 1}, {MaxBytes: 10, Keep: 0}} {
		if _, err := Open(filepath.Join(t.TempDir(), "x.log"), r); err == nil {
			t.Errorf("Open with %+v: no error", r)
		}
	}
}

// The pattern given to YARN matches every rolled piece and never a file
// being written nor the container's stdout/stderr.
func TestRolledPatternMatchesOnlyPieces(t *testing.T) {
	re := regexp.MustCompile(RolledPattern("am.log", "worker.log"))
	for _, n := range []string{RolledName("am.log", 1), RolledName("worker.log", 12), RolledName("worker.log", 123456)} {
		if !re.MatchString(n) {
			t.Errorf("%s does not match %s", n, re)
		}
	}
	for _, n := range []string{"am.log", "worker.log", "stderr", "stdout", "worker.log.1", "workerXlog.0001", "attempt_1.stderr"} {
		if re.MatchString(n) {
			t.Errorf("%s matches %s", n, re)
		}
	}
}

// Attach: everything in the file, warnings and errors on stderr too.
func TestAttachSplitsByLevel(t *testing.T) {
	dir := t.TempDir()
	log := logrus.New()
	var stderr bytes.Buffer
	c, err := Attach(log, filepath.Join(dir, "logs"), "am.log", Roll{MaxBytes: 1 << 20, Keep: 1}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("informing")
	log.Warn("warning")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	file := read(t, filepath.Join(dir, "logs", "am.log"))
	if !strings.Contains(file, "informing") || !strings.Contains(file, "warning") {
		t.Errorf("am.log lacks a line:\n%s", file)
	}
	if s := stderr.String(); strings.Contains(s, "informing") || !strings.Contains(s, "warning") {
		t.Errorf("stderr should hold the warning only:\n%s", s)
	}
}
