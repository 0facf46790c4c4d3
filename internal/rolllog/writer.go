package rolllog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Roll says when a log rolls and how many rolled pieces stay.
type Roll struct {
	// MaxBytes: a write that would take the file beyond this rolls it
	// first (a single larger write still goes whole into a fresh file).
	// 0: never roll; the file only grows.
	MaxBytes int64
	// Keep is how many rolled pieces stay beside the current file; older
	// ones are deleted when a roll makes more. At least 1 when MaxBytes > 0.
	Keep int
}

// Writer is an io.WriteCloser over a rolling file; safe for concurrent use.
type Writer struct {
	path string
	roll Roll

	mu   sync.Mutex
	f    *os.File
	size int64
	next int // the number the next rolled piece gets
}

// RolledName is the name of the n-th rolled piece of the file named base:
// base.NNNN (zero-padded so that a name sort is the order written, as
// `yarn logs` shows them; past 9999 the number just grows).
func RolledName(base string, n int) string {
	return fmt.Sprintf("%s.%04d", base, n)
}

// rolledNumber is n when name is RolledName(base, n).
func rolledNumber(base, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, base+".")
	if !ok || len(rest) < 4 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

// Open appends to path, rolling it as roll says. Rolled pieces already
// beside it (an earlier process in the same directory) are counted and
// numbered after.
func Open(path string, roll Roll) (*Writer, error) {
	if roll.MaxBytes < 0 || roll.MaxBytes > 0 && roll.Keep < 1 {
		return nil, fmt.Errorf("rolllog: %s: bad roll %+v (MaxBytes >= 0, Keep >= 1 when rolling)", path, roll)
	}
	w := &Writer{path: path, roll: roll, next: 1}
	if pieces, err := w.pieces(); err == nil && len(pieces) > 0 {
		w.next = pieces[len(pieces)-1] + 1
	}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("rolllog: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close() // the Stat error is the one to report
		return fmt.Errorf("rolllog: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

// Write appends p, rolling first when p would take the file beyond
// MaxBytes. A failed roll keeps writing to the current file: losing the
// bound is better than losing the log.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, os.ErrClosed
	}
	var rollErr error
	if w.roll.MaxBytes > 0 && w.size > 0 && w.size+int64(len(p)) > w.roll.MaxBytes {
		rollErr = w.rollLocked()
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, errors.Join(err, rollErr)
}

// rollLocked renames the current file to the next rolled name, opens a
// fresh one and deletes the pieces beyond Keep.
func (w *Writer) rollLocked() error {
	if err := w.f.Close(); err != nil {
		return w.reopen(fmt.Errorf("rolllog: closing %s: %w", w.path, err))
	}
	rolled := filepath.Join(filepath.Dir(w.path), RolledName(filepath.Base(w.path), w.next))
	if err := os.Rename(w.path, rolled); err != nil {
		return w.reopen(fmt.Errorf("rolllog: rolling %s: %w", w.path, err))
	}
	w.next++
	if err := w.open(); err != nil {
		return err
	}
	return w.prune()
}

// reopen goes on with the current file after a roll failed half way.
func (w *Writer) reopen(cause error) error {
	return errors.Join(cause, w.open())
}

// prune deletes the oldest rolled pieces beyond Keep. A piece someone
// else already deleted (the NodeManager, after uploading it) is fine.
func (w *Writer) prune() error {
	pieces, err := w.pieces()
	if err != nil {
		return err
	}
	var errs []error
	base := filepath.Base(w.path)
	for len(pieces) > w.roll.Keep {
		p := filepath.Join(filepath.Dir(w.path), RolledName(base, pieces[0]))
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("rolllog: %w", err))
		}
		pieces = pieces[1:]
	}
	return errors.Join(errs...)
}

// pieces are the numbers of the rolled pieces beside the file, ascending.
func (w *Writer) pieces() ([]int, error) {
	ents, err := os.ReadDir(filepath.Dir(w.path))
	if err != nil {
		return nil, fmt.Errorf("rolllog: %w", err)
	}
	base := filepath.Base(w.path)
	var out []int
	for _, e := range ents {
		if n, ok := rolledNumber(base, e.Name()); ok {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// Close closes the current file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
