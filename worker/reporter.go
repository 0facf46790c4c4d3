package worker

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// A Streaming program reports to the framework on its stderr, as Hadoop
// Streaming's PipeMapRed reads it: a line starting with the prefix
// (stream.stderr.reporter.prefix, "reporter:") then "counter:" adds to a
// counter ("reporter:counter:GROUP,NAME,AMOUNT": the rest trimmed, split at
// commas into exactly three fields, AMOUNT a Java long); then "status:" sets
// the attempt's status (the rest, trimmed); any other line with the prefix
// is only warned about. None of those reaches the stderr log; every other
// line does, unchanged. The worker sums the counters of the program and its
// combiners and sends them with the attempt's final update; the status
// goes with its progress (reportProgress) and its final update.

// maxStderrLine bounds the bytes held for one stderr line: a longer one is
// passed to the log as it comes (it is no reporter line of any use).
const maxStderrLine = 64 << 10

// reporter holds one attempt's counters and status.
type reporter struct {
	prefix string
	log    logrus.FieldLogger

	mu       sync.Mutex
	counts   map[[2]string]int64
	status   string
	warnings int
}

func newReporter(prefix string, log logrus.FieldLogger) *reporter {
	if prefix == "" {
		prefix = "reporter:"
	}
	return &reporter{prefix: prefix, log: log, counts: map[[2]string]int64{}}
}

// take reads one stderr line (without its end); false when it is no
// reporter line and belongs in the log.
func (r *reporter) take(line string) bool {
	rest, ok := strings.CutPrefix(line, r.prefix)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := strings.CutPrefix(rest, "counter:"); ok {
		if !r.addCounter(c) {
			r.warn("cannot parse the counter increment of stderr line %q: want %scounter:GROUP,NAME,AMOUNT", line, r.prefix)
		}
		return true
	}
	if s, ok := strings.CutPrefix(rest, "status:"); ok {
		r.status = strings.TrimSpace(s)
		return true
	}
	r.warn("cannot parse reporter line %q: want %scounter:... or %sstatus:...", line, r.prefix, r.prefix)
	return true
}

// addCounter parses "GROUP,NAME,AMOUNT" as Java's String.split(",") and
// Long.parseLong do: trailing empty fields dropped, no space allowed in
// the amount.
func (r *reporter) addCounter(s string) bool {
	fields := strings.Split(strings.TrimSpace(s), ",")
	for len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	if len(fields) != 3 {
		return false
	}
	n, err := strconv.ParseInt(fields[2], 10, 64) // a sign, then digits, as parseLong
	if err != nil {
		return false
	}
	r.counts[[2]string{fields[0], fields[1]}] += n
	return true
}

// warn logs a malformed reporter line, the first few only: a program
// printing one per record must not fill the worker's log.
func (r *reporter) warn(format string, args ...any) {
	r.warnings++
	if r.warnings <= 10 {
		r.log.Warnf(format, args...)
	}
}

// currentStatus is the last status the program set ("" for none; a nil
// reporter has none).
func (r *reporter) currentStatus() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// counters is the sums so far, sorted by group and name.
func (r *reporter) counters() []*ebbpb.Counter {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*ebbpb.Counter, 0, len(r.counts))
	for k, v := range r.counts {
		out = append(out, &ebbpb.Counter{Group: k[0], Name: k[1], Value: v})
	}
	slices.SortFunc(out, func(a, b *ebbpb.Counter) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// reporterWriter is a stderr that takes the reporter's lines out and
// passes the others on to out unchanged. Lines end at LF; a CR before it
// (a CRLF line) is not part of what the reporter reads, as Hadoop's
// LineReader drops it.
type reporterWriter struct {
	r   *reporter
	out io.Writer

	mu  sync.Mutex
	buf []byte
}

func (w *reporterWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p...)
			if len(w.buf) > maxStderrLine {
				if err := w.pass(w.buf); err != nil {
					return n, err
				}
				w.buf = w.buf[:0]
			}
			break
		}
		line := p[:i+1]
		if len(w.buf) > 0 {
			w.buf = append(w.buf, line...)
			line = w.buf
		}
		if err := w.line(line); err != nil {
			return n, err
		}
		w.buf = w.buf[:0]
		p = p[i+1:]
	}
	return n, nil
}

// line handles one line with its end.
func (w *reporterWriter) line(l []byte) error {
	text := strings.TrimSuffix(strings.TrimSuffix(string(l), "\n"), "\r")
	if w.r.take(text) {
		return nil
	}
	return w.pass(l)
}

func (w *reporterWriter) pass(b []byte) error {
	_, err := w.out.Write(b)
	return err
}

// Flush handles a last line without its end.
func (w *reporterWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	err := w.line(w.buf)
	w.buf = w.buf[:0]
	return err
}
