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

// nest takes the locks in the order given, then lets them go in reverse:
// the order under test, and nothing else.
func nest(ls ...sync.Locker) {
	for _, l := range ls {
		l.Lock()
	}
	for i := len(ls) - 1; i >= 0; i-- {
		ls[i].Unlock()
	}
}

// reader takes an RWMutex for reading.
type reader struct{ m *RWMutex }

func (r reader) Lock()   { r.m.RLock() }
func (r reader) Unlock() { r.m.RUnlock() }

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
	heartbeat := func() { nest(w, a) }
	runCommand := func() { nest(a, w) }
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
	takeOne(func() { nest(w, a1) })
	takeOne(func() { nest(a2, w) })
	if v := violations(t); len(v) != 1 {
		t.Fatalf("%d violations, want 1: %v", len(v), v)
	}
}

// A cycle through three locks, each pair taken in a consistent order.
func TestThreeLockCycle(t *testing.T) {
	Reset()
	a, b, c := named("a"), named("b"), named("c")
	takeOne(func() { nest(a, b) })
	takeOne(func() { nest(b, c) })
	if v := Take(); len(v) != 0 {
		t.Fatalf("a chain reported as a cycle: %v", v)
	}
	takeOne(func() { nest(c, a) })
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
			nest(a, b, c)
			nest(c)
			nest(a)
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
	takeOne(func() { nest(a1, a2) })
	if v := violations(t); len(v) != 1 || v[0].Taking != "attempt" || len(v[0].Path) != 1 {
		t.Fatalf("violations %v, want one for two attempt locks held at once", v)
	}
	rw := &RWMutex{}
	rw.SetClass("outputs")
	m := named("worker")
	takeOne(func() { nest(reader{rw}, m) })
	takeOne(func() { nest(m, reader{rw}) })
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
	takeOne(func() { nest(b, a) })
	nest(b) // a is not held here any more: no a -> b edge, no cycle
	if v := violations(t); len(v) != 0 {
		t.Fatalf("violations after a hand-over unlock: %v", v)
	}
}

// Checked fails a package whose tests all passed once an inversion was
// seen, and passes their own code through when none was.
func TestCheckedFailsThePackageOnAnInversion(t *testing.T) {
	Reset()
	if got := Checked(func() int { return 0 }); got != 0 {
		t.Fatalf("no inversion: Checked = %d, want the tests' 0", got)
	}
	if got := Checked(func() int { return 3 }); got != 3 {
		t.Fatalf("no inversion: Checked = %d, want the tests' 3", got)
	}
	a, b := named("a"), named("b")
	takeOne(func() { nest(a, b) })
	takeOne(func() { nest(b, a) })
	if got := Checked(func() int { return 0 }); got != 1 {
		t.Errorf("after an inversion: Checked = %d, want 1", got)
	}
	Reset()
}
