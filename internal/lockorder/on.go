//go:build lockorder

package lockorder

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Enabled says whether this build checks lock order (the lockorder tag).
const Enabled = true

// Mutex is a sync.Mutex whose order against the other checked locks is
// recorded and checked.
type Mutex struct {
	mu    sync.Mutex
	class string
}

// SetClass names the mutex's class (see the package comment); call it
// before the mutex is shared.
func (m *Mutex) SetClass(c string) { m.class = c }

// Lock checks the order, then locks.
func (m *Mutex) Lock() {
	g := before(m, m.class)
	m.mu.Lock()
	acquired(g, m, m.class)
}

// Unlock unlocks.
func (m *Mutex) Unlock() {
	released(m)
	m.mu.Unlock()
}

// RWMutex is a sync.RWMutex whose order is checked; a read lock orders
// like a lock (a writer waiting behind a reader blocks later readers, so a
// read-held lock can be part of a deadlock too).
type RWMutex struct {
	mu    sync.RWMutex
	class string
}

// SetClass names the mutex's class; call it before the mutex is shared.
func (m *RWMutex) SetClass(c string) { m.class = c }

// Lock checks the order, then locks for writing.
func (m *RWMutex) Lock() {
	g := before(m, m.class)
	m.mu.Lock()
	acquired(g, m, m.class)
}

// Unlock unlocks for writing.
func (m *RWMutex) Unlock() {
	released(m)
	m.mu.Unlock()
}

// RLock checks the order, then locks for reading.
func (m *RWMutex) RLock() {
	g := before(m, m.class)
	m.mu.RLock()
	acquired(g, m, m.class)
}

// RUnlock unlocks for reading.
func (m *RWMutex) RUnlock() {
	released(m)
	m.mu.RUnlock()
}

// heldLock is a lock a goroutine holds.
type heldLock struct {
	lock  any // *Mutex or *RWMutex: the instance, for Unlock and recursion
	class string
}

// checker is the graph of the whole process. It is package state because
// the locks it watches are shared across the packages of one test binary;
// it exists only in lockorder builds.
type checker struct {
	mu   sync.Mutex
	held map[int64][]heldLock
	// edges[a][b] is the stack where b was first taken while a was held.
	edges      map[string]map[string]string
	reported   map[[2]string]bool
	violations []Violation
}

var state = &checker{held: map[int64][]heldLock{}, edges: map[string]map[string]string{}, reported: map[[2]string]bool{}}

// classOf is a lock's class: its name, else the instance itself.
func classOf(lock any, class string) string {
	if class != "" {
		return class
	}
	return fmt.Sprintf("unnamed %T %p", lock, lock)
}

// before records, for the calling goroutine about to take lock, an edge
// from every lock it holds, and reports any cycle an edge closes. It runs
// before the lock is taken, so an inversion is reported even when this
// very Lock is the one that deadlocks.
func before(lock any, class string) int64 {
	g := goid()
	class = classOf(lock, class)
	c := state
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.held[g] {
		c.addEdge(h, lock, class)
	}
	return g
}

func acquired(g int64, lock any, class string) {
	c := state
	c.mu.Lock()
	c.held[g] = append(c.held[g], heldLock{lock: lock, class: classOf(lock, class)})
	c.mu.Unlock()
}

// released forgets the lock for the goroutine holding it: the caller, or
// (a lock may be unlocked by another goroutine) whichever holds it.
func released(lock any) {
	g := goid()
	c := state
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.drop(g, lock) {
		return
	}
	for other := range c.held {
		if c.drop(other, lock) {
			return
		}
	}
}

func (c *checker) drop(g int64, lock any) bool {
	hs := c.held[g]
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].lock == lock {
			hs = append(hs[:i], hs[i+1:]...)
			if len(hs) == 0 {
				delete(c.held, g)
			} else {
				c.held[g] = hs
			}
			return true
		}
	}
	return false
}

// addEdge records held -> class; if class already reaches held, the new
// edge closes a cycle. c.mu held.
func (c *checker) addEdge(h heldLock, lock any, class string) {
	if h.lock == lock || h.class == class {
		c.report(h.class, class, []string{class}, "")
		return
	}
	if _, ok := c.edges[h.class][class]; ok {
		return
	}
	if c.edges[h.class] == nil {
		c.edges[h.class] = map[string]string{}
	}
	c.edges[h.class][class] = stack()
	if path := c.path(class, h.class); path != nil {
		c.report(h.class, class, path, c.edges[path[0]][path[1]])
	}
}

// path is a chain of recorded edges from -> ... -> to, or nil.
func (c *checker) path(from, to string) []string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == to {
			var p []string
			for ; n != ""; n = parent[n] {
				p = append([]string{n}, p...)
			}
			return p
		}
		for next := range c.edges[n] {
			if _, seen := parent[next]; !seen {
				parent[next] = n
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// report records a violation once per pair of classes and prints it at
// once: a test that then deadlocks still shows why. c.mu held.
func (c *checker) report(held, taking string, path []string, before string) {
	key := [2]string{held, taking}
	if c.reported[key] {
		return
	}
	c.reported[key] = true
	v := Violation{Held: held, Taking: taking, Path: path, Stack: stack(), Before: before}
	c.violations = append(c.violations, v)
	fmt.Fprint(os.Stderr, v.String())
}

// Verify returns the inversions seen so far as one error (nil: none).
func Verify() error {
	c := state
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, v := range c.violations {
		errs = append(errs, errors.New(v.String()))
	}
	return errors.Join(errs...)
}

// Take returns and forgets the inversions seen so far (the edges stay).
func Take() []Violation {
	c := state
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.violations
	c.violations = nil
	c.reported = map[[2]string]bool{}
	return v
}

// Reset forgets every edge and violation (the locks held stay held).
func Reset() {
	c := state
	c.mu.Lock()
	defer c.mu.Unlock()
	c.edges = map[string]map[string]string{}
	c.reported = map[[2]string]bool{}
	c.violations = nil
}

// goid is the calling goroutine's id, from the first line of its stack
// ("goroutine 42 [running]:"): slow, and only in lockorder builds.
func goid() int64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic("lockorder: cannot read the goroutine id from " + strconv.Quote(s))
	}
	return id
}

// stack is the calling goroutine's stack without the checker's frames.
func stack() string {
	buf := make([]byte, 64<<10)
	lines := strings.Split(string(buf[:runtime.Stack(buf, false)]), "\n")
	out := lines[:1] // "goroutine N [running]:"
	i := 1
	for i+1 < len(lines) && checkerFrame(lines[i]) {
		i += 2 // a frame is its function line and its file line
	}
	return strings.Join(append(out, lines[i:]...), "\n")
}

// checkerFrame says whether a stack's function line is the checker's own.
func checkerFrame(line string) bool {
	_, fn, ok := strings.Cut(line, "internal/lockorder.")
	if !ok {
		return false
	}
	for _, p := range []string{"stack(", "before(", "(*checker).", "(*Mutex).", "(*RWMutex)."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
