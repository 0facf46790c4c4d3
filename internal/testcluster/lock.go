package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// go test runs packages in parallel, and several packages' tests run
// applications on the same minicluster (cmd/ebb, scripts/bench,
// yarnclient). A test that needs every slot of the cluster (its asks
// must all be met, or it shrinks a node) takes the cluster Exclusive;
// tests in other packages that run applications take it Shared. The lock
// is flock(2) on a file beside the cluster's conf dir, so it holds across
// test binaries, and goes with the test (t.Cleanup).
//
// flock locks belong to an open file, not a process: a test that holds the
// cluster Shared must not ask for it Exclusive. cmd/ebb's tests run one
// at a time and take nothing but Exclusive.

// lockWait bounds the wait for the lock: the longest Shared holder,
// scripts/bench's TeraSort smoke test, runs seven MapReduce jobs.
const lockWait = 20 * time.Minute

// Shared holds the cluster against Exclusive tests until t ends.
func Shared(t testing.TB) { lock(t, EnvValue(t, "RUNDIR"), syscall.LOCK_SH, "shared") }

// Exclusive holds the cluster against every Shared and Exclusive test of
// other test binaries until t ends.
func Exclusive(t testing.TB) { lock(t, EnvValue(t, "RUNDIR"), syscall.LOCK_EX, "exclusive") }

// ExclusiveAt is Exclusive for the minicluster whose conf dir is confDir
// (a special cluster, such as FaultsConfDir's): a test that stops its
// daemons holds it this way.
func ExclusiveAt(t testing.TB, confDir string) {
	t.Helper()
	lock(t, filepath.Dir(confDir), syscall.LOCK_EX, "exclusive")
}

// SharedAt is Shared for the minicluster whose conf dir is confDir.
func SharedAt(t testing.TB, confDir string) {
	t.Helper()
	lock(t, filepath.Dir(confDir), syscall.LOCK_SH, "shared")
}

func lock(t testing.TB, runDir string, how int, name string) {
	t.Helper()
	path := filepath.Join(runDir, "tests.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("testcluster: the cluster's test lock: %v", err)
	}
	start := time.Now()
	if err := acquire(f, how, lockWait); err != nil {
		_ = f.Close()
		t.Fatalf("testcluster: no %s hold on %s: %v", name, path, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("testcluster: waited %s to hold the cluster %s", d.Round(time.Second), name)
	}
	t.Cleanup(func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	})
}

// errHeld: others held the lock for the whole wait.
var errHeld = errors.New("other tests held it")

// acquire takes flock how (LOCK_SH or LOCK_EX) on f, polling until wait
// has passed.
func acquire(f *os.File, how int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w for %s", errHeld, wait)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
