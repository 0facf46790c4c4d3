package task

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// feedPipe makes input/<name> a named pipe and writes content into it
// once, as the worker streams a split: a second open finds no writer.
func feedPipe(t *testing.T, c *Context, name, content string) {
	t.Helper()
	p := filepath.Join(c.InputDir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.WriteString(content)
		_ = f.Close()
	}()
	t.Cleanup(func() {
		// Release the writer if the task never opened the pipe.
		if fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = syscall.Close(fd)
		}
	})
}

// runBounded runs a task, failing the test if it blocks (a task opening a
// streamed split twice would wait for a writer forever).
func runBounded(t *testing.T, c *Context, name string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- programs[name].run(c, nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	case <-time.After(10 * time.Second):
		// Let the blocked open through so the goroutine can end.
		if f, err := os.OpenFile(filepath.Join(c.InputDir, "_splits", "0"), os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_ = f.Close()
		}
		t.Fatalf("%s did not finish within 10 s over a named pipe: did it open it twice?", name)
	}
}

func TestBuiltinsReadStreamedSplits(t *testing.T) {
	for name, want := range map[string]string{
		"cat":    "b b\na a\n",
		"sort":   "a a\nb b\n",
		"wc-map": "a\t2\nb\t2\n",
	} {
		c := newTestContext(t, nil)
		feedPipe(t, c, "_splits/0", "b b\na a\n")
		runBounded(t, c, name)
		if got := readOut(t, c, SinkFile); got != want {
			t.Errorf("%s over a pipe = %q, want %q", name, got, want)
		}
	}
}

// TestWCReduceReadsAStreamedSplitOnce: unsorted counts would make the
// merge start over; over a pipe wc-reduce counts with spills at once.
func TestWCReduceReadsAStreamedSplitOnce(t *testing.T) {
	c := newTestContext(t, map[string]string{"z/file": "a\t1\n"})
	feedPipe(t, c, "_splits/0", "b\t1\na\t2\nb\t3\n")
	runBounded(t, c, "wc-reduce")
	if got := readOut(t, c, SinkFile); got != "a\t3\nb\t4\n" {
		t.Errorf("wc-reduce = %q", got)
	}
}
