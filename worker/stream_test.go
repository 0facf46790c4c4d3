package worker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// openString opens every location as the same content.
func openString(content string) openFunc {
	return func(string) (io.ReadSeekCloser, error) { return nopCloser{strings.NewReader(content)}, nil }
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

// startStreams makes a pipe per split in a fresh directory and starts the
// writers, as runCommand does.
func startStreams(t *testing.T, open openFunc, splits [][2]int64) *splitStreams {
	t.Helper()
	fifos, err := makeSplitPipes(filepath.Join(t.TempDir(), "_splits"), len(splits))
	if err != nil {
		t.Fatal(err)
	}
	var sp []*ebbpb.InputSplit
	for _, s := range splits {
		sp = append(sp, &ebbpb.InputSplit{Path: "in.txt", Offset: s[0], Length: s[1]})
	}
	return startSplitStreams(fifos, sp, open, logrus.NewEntry(logrus.StandardLogger()))
}

// stopWithin calls stop, failing the test if it hangs: stop must be
// bounded by the command's end, whatever the task did with its pipes.
func stopWithin(t *testing.T, s *splitStreams) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.stop() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return within 10 s: a writer hangs")
		return nil
	}
}

// TestStreamedSplitsAssignEveryLineToExactlyOneSplit is
// TestSplitsAssignEveryLineToExactlyOneSplit through the pipes: the task
// reads them last to first (the writers must not depend on the order),
// and what it read, put back in split order, is the file.
func TestStreamedSplitsAssignEveryLineToExactlyOneSplit(t *testing.T) {
	files := map[string]string{
		"plain":            "alpha\nbeta\ngamma\ndelta\n",
		"no final newline": "alpha\nbeta\ngamma",
		"empty lines":      "\n\n\na\n\nb\n\n",
		"one long line":    strings.Repeat("x", 100) + "\nshort\n",
		"unicode":          "héllo wörld\nÅngström\n日本語\n",
		"empty file":       "",
		// Bigger than a pipe's buffer, so writes block until read.
		"large": strings.Repeat("the quick brown fox\n", 20000),
	}
	for name, content := range files {
		for _, step := range []int64{1, 3, 7, 1000, 150000} {
			t.Run(fmt.Sprintf("%s/step=%d", name, step), func(t *testing.T) {
				splits := splitsOf(int64(len(content)), step)
				if len(splits) > 200 {
					t.Skip("one pipe per byte of a large file is no test of the rule")
				}
				s := startStreams(t, openString(content), splits)
				got := make([]string, len(splits))
				for i := len(s.fifos) - 1; i >= 0; i-- {
					b, err := os.ReadFile(s.fifos[i])
					if err != nil {
						t.Fatal(err)
					}
					got[i] = string(b)
				}
				if err := stopWithin(t, s); err != nil {
					t.Fatalf("stop = %v", err)
				}
				if joined := strings.Join(got, ""); joined != content {
					t.Errorf("splits joined = %q, want %q", joined, content)
				}
			})
		}
	}
}

// TestStreamedSplitBoundaries is TestSplitBoundaries through a pipe.
func TestStreamedSplitBoundaries(t *testing.T) {
	const file = "aaa\nbbb\nccc\n"
	cases := []struct {
		offset, length int64
		want           string
	}{
		{0, 4, "aaa\nbbb\n"}, {4, 4, "ccc\n"}, {0, 3, "aaa\n"}, {1, 2, ""}, {1, 3, "bbb\n"},
		{8, 4, ""}, {9, 3, ""}, {0, 12, file}, {11, 1, ""},
	}
	for _, c := range cases {
		s := startStreams(t, openString(file), [][2]int64{{c.offset, c.length}})
		got, err := os.ReadFile(s.fifos[0])
		if serr := stopWithin(t, s); err != nil || serr != nil || string(got) != c.want {
			t.Errorf("split [%d+%d] = %q, %v, stop %v; want %q", c.offset, c.length, got, err, serr, c.want)
		}
	}
}

// TestTaskReadingPartOfItsPipeIsNoError: a task may stop reading (head);
// the writer's EPIPE is not the attempt's failure.
func TestTaskReadingPartOfItsPipeIsNoError(t *testing.T) {
	content := strings.Repeat("0123456789abcdef\n", 100000) // 1.7 MB, far beyond a pipe's buffer
	s := startStreams(t, openString(content), [][2]int64{{0, int64(len(content))}})
	f, err := os.Open(s.fifos[0])
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "0123456789" {
		t.Fatalf("first bytes = %q, %v", buf, err)
	}
	_ = f.Close()
	if err := stopWithin(t, s); err != nil {
		t.Errorf("stop after the task closed its pipe early = %v, want nil", err)
	}
}

// failingReader serves good bytes, then fails as a lost datanode would.
type failingReader struct {
	io.ReadSeeker
	left int
}

var errDatanode = errors.New("datanode 10.0.0.7:9866 went away")

func (r *failingReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, errDatanode
	}
	n, err := r.ReadSeeker.Read(p[:min(len(p), r.left)])
	r.left -= n
	return n, err
}

// TestReadErrorMidStreamFailsTheStreams: the task sees an end of file
// after part of its split, which it cannot tell from the real end, so the
// worker must report the read error (and signal it at once, so the task
// can be stopped).
func TestReadErrorMidStreamFailsTheStreams(t *testing.T) {
	content := strings.Repeat("line of text\n", 100000)
	open := func(string) (io.ReadSeekCloser, error) {
		return nopCloser{&failingReader{ReadSeeker: strings.NewReader(content), left: 300000}}, nil
	}
	s := startStreams(t, open, [][2]int64{{0, int64(len(content))}})
	got, err := os.ReadFile(s.fifos[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) >= len(content) {
		t.Fatalf("task read %d bytes, want a truncated split", len(got))
	}
	select {
	case <-s.failed:
	case <-time.After(10 * time.Second):
		t.Fatal("failed not closed after the read error")
	}
	err = stopWithin(t, s)
	if !errors.Is(err, errDatanode) || !strings.Contains(err.Error(), "in.txt [0+") {
		t.Errorf("stop = %v, want the datanode error naming the split", err)
	}
}

// TestOpenErrorFailsTheStreams: a split that cannot be opened is an error
// too (the task got an empty pipe).
func TestOpenErrorFailsTheStreams(t *testing.T) {
	open := func(string) (io.ReadSeekCloser, error) { return nil, os.ErrNotExist }
	s := startStreams(t, open, [][2]int64{{0, 10}})
	if got, err := os.ReadFile(s.fifos[0]); err != nil || len(got) != 0 {
		t.Fatalf("read = %q, %v; want an empty pipe", got, err)
	}
	if err := stopWithin(t, s); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stop = %v, want the open error", err)
	}
}

// TestTaskThatNeverOpensItsPipesDoesNotHang: writers blocked in their open
// (no reader ever came) are released by stop, without error and without
// reading their splits.
func TestTaskThatNeverOpensItsPipesDoesNotHang(t *testing.T) {
	opened := make(chan string, 10)
	open := func(p string) (io.ReadSeekCloser, error) {
		opened <- p
		return nopCloser{strings.NewReader("a\n")}, nil
	}
	s := startStreams(t, open, [][2]int64{{0, 2}, {0, 2}, {0, 2}})
	if err := stopWithin(t, s); err != nil {
		t.Errorf("stop = %v, want nil", err)
	}
	if len(opened) != 0 {
		t.Errorf("%d splits opened for a task that read none", len(opened))
	}
}

// TestStopReleasesAWriterBlockedOnAFullPipe: a reader that holds the pipe
// open without reading (a child the task left behind) leaves the writer
// blocked on a full pipe; stop still returns.
func TestStopReleasesAWriterBlockedOnAFullPipe(t *testing.T) {
	content := strings.Repeat("x", 1<<20) + "\n"
	s := startStreams(t, openString(content), [][2]int64{{0, int64(len(content))}})
	f, err := os.Open(s.fifos[0])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	// Once the first bytes have come the writer is writing, and it soon
	// fills the pipe and waits.
	first := make([]byte, 10)
	if _, err := io.ReadFull(f, first); err != nil {
		t.Fatal(err)
	}
	if err := stopWithin(t, s); err != nil {
		t.Errorf("stop = %v, want nil", err)
	}
	// The reader sees what was written, then the end.
	rest, err := io.ReadAll(f)
	b := append(first, rest...)
	if err != nil || len(b) >= len(content) || !bytes.Equal(b, []byte(content[:len(b)])) {
		t.Errorf("reader got %d bytes, %v; want a prefix of the split", len(b), err)
	}
}
