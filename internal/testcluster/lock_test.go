package testcluster

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Two shared holds go together; an exclusive one waits for both to end
// and keeps a shared one out while it lasts.
func TestAcquire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tests.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		return f
	}
	a, b, x := open(), open(), open()
	if err := acquire(a, syscall.LOCK_SH, 0); err != nil {
		t.Fatalf("first shared: %v", err)
	}
	if err := acquire(b, syscall.LOCK_SH, 0); err != nil {
		t.Fatalf("second shared beside the first: %v", err)
	}
	if err := acquire(x, syscall.LOCK_EX, 0); !errors.Is(err, errHeld) {
		t.Fatalf("exclusive while two shared holds last: %v, want %v", err, errHeld)
	}
	_ = syscall.Flock(int(a.Fd()), syscall.LOCK_UN)
	_ = syscall.Flock(int(b.Fd()), syscall.LOCK_UN)
	if err := acquire(x, syscall.LOCK_EX, 0); err != nil {
		t.Fatalf("exclusive once both ended: %v", err)
	}
	if err := acquire(a, syscall.LOCK_SH, 0); !errors.Is(err, errHeld) {
		t.Fatalf("shared while the exclusive hold lasts: %v, want %v", err, errHeld)
	}
}
