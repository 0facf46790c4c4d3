package eventlog

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/internal/lockorder"
)

// Writer records a live loop's events, drains and actions (am.Recorder).
// The loop only appends to a buffer; a goroutine of the Writer's own
// writes it out, so a slow file system (HDFS) never holds the loop. The
// log is capped at max bytes: the line that would pass the cap is replaced
// by a "# capped" line (which may pass the cap by its own 80-odd bytes)
// and nothing more is recorded, so a capped log is still a whole,
// replayable beginning of the run.
type Writer struct {
	mu      lockorder.Mutex // taken alone
	buf     []byte
	size    int64 // bytes accepted so far
	max     int64
	capped  bool
	err     error // the first encoding or write error; recording stops
	closing bool

	out  io.WriteCloser
	kick chan struct{}
	done chan struct{}
}

// NewWriter writes h to out and records until Close. maxBytes <= 0 means
// no cap.
func NewWriter(out io.WriteCloser, h Header, maxBytes int64) (*Writer, error) {
	h.Version = Version
	js, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("eventlog: header: %w", err)
	}
	w := &Writer{out: out, max: maxBytes, kick: make(chan struct{}, 1), done: make(chan struct{})}
	w.mu.SetClass("am.eventlog")
	w.add(append(append([]byte("H "), js...), '\n'))
	go w.run()
	return w, nil
}

// Event records an event as the core gets it.
func (w *Writer) Event(now time.Time, ev core.Event) { w.record('E', now, ev) }

// Drain records that the loop drained the core at now.
func (w *Writer) Drain(now time.Time) { w.record('D', now, nil) }

// Action records an action as the loop carries it out.
func (w *Writer) Action(now time.Time, a core.Action) { w.record('A', now, a) }

func (w *Writer) record(tag byte, now time.Time, v any) {
	b, err := line(tag, now, v)
	if err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
		return
	}
	w.add(b)
}

func (w *Writer) add(b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.capped || w.err != nil {
		return
	}
	if w.max > 0 && w.size+int64(len(b)) > w.max {
		w.capped = true
		b = fmt.Appendf(nil, "# capped at %d bytes (ebb.am.event.log.max.mb): nothing more was recorded\n", w.max)
	}
	w.size += int64(len(b))
	w.buf = append(w.buf, b...)
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// run writes what was recorded as it comes, until Close.
func (w *Writer) run() {
	defer close(w.done)
	for {
		<-w.kick
		w.mu.Lock()
		b, closing := w.buf, w.closing
		w.buf = nil
		w.mu.Unlock()
		if len(b) > 0 {
			if _, err := w.out.Write(b); err != nil {
				w.mu.Lock()
				if w.err == nil {
					w.err = fmt.Errorf("eventlog: %w", err)
				}
				w.mu.Unlock()
			}
		}
		if closing {
			return
		}
	}
}

// Close writes what is left, closes the file, and returns the first error
// that stopped the recording, if any.
func (w *Writer) Close() error {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	<-w.done
	cerr := w.out.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if cerr != nil {
		return fmt.Errorf("eventlog: %w", cerr)
	}
	return nil
}
