package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// splitAttempt is a shell attempt reading one split of path, a sink that
// commits to a fresh directory, which it returns.
func splitAttempt(t *testing.T, id, script, path string, size int64) (*ebbpb.RunAttempt, string) {
	a := shellAttempt(id, "d", script)
	a.Splits = []*ebbpb.InputSplit{{Path: path, Offset: 0, Length: size}}
	a.CommitDir = filepath.Join(t.TempDir(), "out")
	return a, a.CommitDir
}

func writeInput(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSplitIsAPipeByDefaultAndAFileOnRequest: the task opens the same
// path either way; inputMode: file (SplitsAsFiles) gives a regular file.
func TestSplitIsAPipeByDefaultAndAFileOnRequest(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	in := writeInput(t, "one\ntwo\n")
	script := `{ test -p input/_splits/0 && echo pipe; test -f input/_splits/0 && echo file; cat input/_splits/0; } > output/part`
	for _, asFile := range []bool{false, true} {
		id := map[bool]string{false: "stream", true: "file"}[asFile]
		a, out := splitAttempt(t, id, script, in, 8)
		a.SplitsAsFiles = asFile
		w.conn.run(a)
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
		got, err := os.ReadFile(filepath.Join(out, "part-00000"))
		if want := map[bool]string{false: "pipe\n", true: "file\n"}[asFile] + "one\ntwo\n"; err != nil || string(got) != want {
			t.Errorf("%s: task wrote %q, %v; want %q", id, got, err, want)
		}
	}
}

// TestTaskReadingPartOfItsSplitSucceeds: head closes the pipe after one
// line of many megabytes; the worker's write fails, the attempt does not.
func TestTaskReadingPartOfItsSplitSucceeds(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	content := strings.Repeat("a line of the split\n", 200000) // 4 MB
	a, out := splitAttempt(t, "head", `head -n 1 input/_splits/0 > output/part`, writeInput(t, content), int64(len(content)))
	w.conn.run(a)
	w.conn.waitUpdate(t, "head", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	if got, err := os.ReadFile(filepath.Join(out, "part-00000")); err != nil || string(got) != "a line of the split\n" {
		t.Errorf("task wrote %q, %v", got, err)
	}
}

// TestTaskThatNeverOpensItsSplitEnds: the writer waits for a reader that
// never comes; the attempt still ends when the command does.
func TestTaskThatNeverOpensItsSplitEnds(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	a, _ := splitAttempt(t, "ignore", `echo done > output/part`, writeInput(t, "x\n"), 2)
	w.conn.run(a)
	w.conn.waitUpdate(t, "ignore", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}

// TestSplitReadErrorFailsTheAttempt: the split cannot be read (here a
// directory: opening works, reading fails). cat sees an empty pipe and
// would go on to succeed, but its input was not the split, so the task is
// killed at once (not after the minute it would go on) and the attempt
// fails, saying why.
func TestSplitReadErrorFailsTheAttempt(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	a, out := splitAttempt(t, "broken", `cat input/_splits/0 > output/part && sleep 60`, t.TempDir(), 100)
	w.conn.run(a)
	u := w.conn.waitUpdate(t, "broken", ebbpb.AttemptState_ATTEMPT_FAILED)
	if d := u.GetDiagnostics(); !strings.Contains(d, "reading input split") || !strings.Contains(d, "is a directory") {
		t.Errorf("diagnostics = %q, want the read error", d)
	}
	if _, err := os.Stat(filepath.Join(out, "part-00000")); !os.IsNotExist(err) {
		t.Errorf("a failed attempt committed its output: %v", err)
	}
}

// TestStreamedSplitProgress: a task that reads its streamed split and
// writes no progress of its own is reported at the share of the split's
// bytes it has been handed: all of them read, 0.99 (1 only when it ends).
func TestStreamedSplitProgress(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	content := strings.Repeat("a line of the split\n", 5000) // 100 KB
	gate := filepath.Join(t.TempDir(), "gate")
	a, _ := splitAttempt(t, "read", `cat input/_splits/0 > output/part
		while [ ! -e `+gate+` ]; do sleep 0.02; done`, writeInput(t, content), int64(len(content)))
	w.conn.run(a)
	deadline := time.After(20 * time.Second)
	for seen := false; !seen; {
		select {
		case m := <-w.conn.fromW:
			if u := m.GetAttempt(); u != nil && u.GetAttemptId() == "read" && u.GetState() == ebbpb.AttemptState_ATTEMPT_RUNNING && u.GetProgress() == 0.99 {
				seen = true
			}
		case <-deadline:
			t.Fatal("no progress of 0.99 reported for a task that read its whole streamed split")
		}
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if u := w.conn.waitUpdate(t, "read", ebbpb.AttemptState_ATTEMPT_SUCCEEDED); u.GetProgress() != 1 {
		t.Errorf("final progress %v, want 1", u.GetProgress())
	}
}
