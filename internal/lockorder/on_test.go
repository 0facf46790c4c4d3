//go:build lockorder

package lockorder

import (
	"strings"
	"sync"
	"testing"
)

func named(class string) *Mutex {
	m := &Mutex{}
	m.SetClass(class)
	return m
}

// takeOne runs f on a goroutine of its own and waits for it: each order
// is taken by a different goroutine, one after the other, so nothing can
// deadlock; the checker must still see the inversion.
func takeOne(f func()) {
	var wg sync.WaitGroup
	wg.Go(f)
	wg.Wait()
}

func violations(t *testing.T) []Violation {
	t.Helper()
	v := Take()
	Reset()
	return v
}

// The worker's old pattern (issue 24): heartbeat held the worker's mutex
// and took an attempt's (a.rss()); runCommand held the attempt's and took
// the worker's (w.sender()). Taken one after the other on two goroutines
// they never deadlock, yet the checker reports the inversion, with the
// stacks of both orders.
func TestTwoLockInversionWithoutDeadlock(t *testing.T) {
	Reset()
	w, a := named("worker"), named("worker.attempt")
	heartbeat := func() { w.Lock(); a.Lock(); a.Unlock(); w.Unlock() }
	runCommand := func() { a.Lock(); w.Lock(); w.Unlock(); a.Unlock() }
	takeOne(heartbeat)
	if v := Take(); len(v) != 0 {
		t.Fatalf("one order alone reported: %v", v)
	}
	takeOne(runCommand)
	v := violations(t)
	if len(v) != 1 {
		t.Fatalf("%d violations, want 1: %v", len(v), v)
	}
	got := v[0]
	if got.Held != "worker.attempt" || got.Taking != "worker" || strings.Join(got.Path, ",") != "worker,worker.attempt" {
		t.Errorf("violation %+v, want worker taken while holding worker.attempt, path worker -> worker.attempt", got)
	}
	// Both stacks name the goroutine's function that took each order.
	if !strings.Contains(got.Stack, "TestTwoLockInversionWithoutDeadlock.func2") || !strings.Contains(got.Before, "TestTwoLockInversionWithoutDeadlock.func1") {
		t.Errorf("stacks do not show both orders:\n%s", got)
	}
	t.Logf("the checker printed:\n%s", got)
}

// Instances of one class count as one lock: the order taken on one
// attempt and the reverse taken on another is the same inversion.
func TestInversionAcrossInstancesOfAClass(t *testing.T) {
	Reset()
	w, a1, a2 := named("worker"), named("worker.attempt"), named("worker.attempt")
	takeOne(func() { w.Lock(); a1.Lock(); a1.Unlock(); w.Unlock() })
	takeOne(func() { a2.Lock(); w.Lock(); w.Unlock(); a2.Unlock() })
	if v := violations(t); len(v) != 1 {
		t.Fatalf("%d violations, want 1: %v", len(v), v)
	}
}

// A cycle through three locks, each pair taken in a consistent order.
func TestThreeLockCycle(t *testing.T) {
	Reset()
	a, b, c := named("a"), named("b"), named("c")
	takeOne(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
	takeOne(func() { b.Lock(); c.Lock(); c.Unlock(); b.Unlock() })
	if v := Take(); len(v) != 0 {
		t.Fatalf("a chain reported as a cycle: %v", v)
	}
	takeOne(func() { c.Lock(); a.Lock(); a.Unlock(); c.Unlock() })
	v := violations(t)
	if len(v) != 1 || strings.Join(v[0].Path, ",") != "a,b,c" {
		t.Fatalf("violations %v, want one with path a -> b -> c", v)
	}
}

// One order kept by many goroutines at once is no violation; nor are
// locks taken one after the other.
func TestConsistentOrderPasses(t *testing.T) {
	Reset()
	a, b, c := named("a"), named("b"), named("c")
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			a.Lock()
			b.Lock()
			c.Lock()
			c.Unlock()
			b.Unlock()
			a.Unlock()
			c.Lock()
			c.Unlock()
			a.Lock()
			a.Unlock()
		})
	}
	wg.Wait()
	if v := violations(t); len(v) != 0 {
		t.Fatalf("violations in a consistent order: %v", v)
	}
}

// Two locks of one class held at once, and a read lock in the cycle.
func TestSameClassAndReadLocks(t *testing.T) {
	Reset()
	a1, a2 := named("attempt"), named("attempt")
	takeOne(func() { a1.Lock(); a2.Lock(); a2.Unlock(); a1.Unlock() })
	if v := violations(t); len(v) != 1 || v[0].Taking != "attempt" || len(v[0].Path) != 1 {
		t.Fatalf("violations %v, want one for two attempt locks held at once", v)
	}
	rw := &RWMutex{}
	rw.SetClass("outputs")
	m := named("worker")
	takeOne(func() { rw.RLock(); m.Lock(); m.Unlock(); rw.RUnlock() })
	takeOne(func() { m.Lock(); rw.RLock(); rw.RUnlock(); m.Unlock() })
	if v := violations(t); len(v) != 1 {
		t.Fatalf("%d violations with a read lock in the cycle, want 1: %v", len(v), v)
	}
}

// A lock unlocked by another goroutine than the one that took it is
// forgotten for its holder: later locks of the holder make no edge from it.
func TestUnlockOnAnotherGoroutine(t *testing.T) {
	Reset()
	a, b := named("a"), named("b")
	a.Lock()
	takeOne(a.Unlock)
	takeOne(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
	b.Lock() // a is not held here any more: no a -> b edge, no cycle
	b.Unlock()
	if v := violations(t); len(v) != 0 {
		t.Fatalf("violations after a hand-over unlock: %v", v)
	}
}
