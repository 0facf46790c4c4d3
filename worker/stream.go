package worker

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Streaming splits. By default a task's split is not copied before the
// command starts: input/_splits/<i> is a named pipe (FIFO) and a goroutine
// of the worker writes the split's lines into it while the task reads, so
// the task starts at once and the bytes are read from HDFS (or the local
// disk) only once. The worker does the reading because it holds the HDFS
// client and the delegation tokens; task programs need neither, and open
// the same path they would open for a copied file.
//
// A writer opens its pipe only when the task opens it for reading (a FIFO
// open blocks until both ends are there), and only then opens the split,
// so a task that reads its splits one after another holds one HDFS stream
// at a time, in whatever order it opens them.
//
// How each end may stop:
//   - the task closes the pipe early (it needed only part): the writer's
//     write fails with EPIPE and it stops quietly; the task's exit code
//     decides the attempt;
//   - reading the split fails (a datanode goes away mid-stream): the
//     writer closes the pipe, the task sees a truncated input, so the
//     attempt must fail whatever the task does: failed is closed and stop
//     reports the error, which the worker puts in the diagnostics;
//   - the task ends without opening a pipe, or while a write is blocked on
//     a full pipe: stop, called once the command has exited, releases every
//     writer (see stop).

// splitsDir is where an attempt's splits appear, one per index.
func splitsDir(a *attempt) string { return filepath.Join(a.inputDir(), "_splits") }

// openFunc opens a split's file (local or hdfs://) for reading.
type openFunc func(location string) (io.ReadSeekCloser, error)

// splitStreams feeds one attempt's splits into their named pipes.
type splitStreams struct {
	fifos  []string
	splits []*ebbpb.InputSplit
	open   openFunc
	log    *logrus.Entry

	// sent counts the bytes written into the pipes, total the splits'
	// lengths: the attempt's progress when the task reports none.
	sent  atomic.Int64
	total int64

	mu lockorder.Mutex
	// stopped is set by stop; a writer that opens its pipe afterwards
	// closes it at once.
	stopped bool
	// writing are the pipes' write ends open now.
	writing map[*os.File]bool
	err     error
	failed  chan struct{}
	wg      sync.WaitGroup
}

// makeSplitPipes creates a named pipe per split in dir, 0, 1, ...
func makeSplitPipes(dir string, n int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	fifos := make([]string, n)
	for i := range fifos {
		fifos[i] = filepath.Join(dir, strconv.Itoa(i))
		if err := syscall.Mkfifo(fifos[i], 0o600); err != nil {
			return nil, fmt.Errorf("creating named pipe %s: %w", fifos[i], err)
		}
	}
	return fifos, nil
}

// startSplitStreams starts a writer per pipe; each waits for its reader.
func startSplitStreams(fifos []string, splits []*ebbpb.InputSplit, open openFunc, log *logrus.Entry) *splitStreams {
	s := &splitStreams{fifos: fifos, splits: splits, open: open, log: log, writing: map[*os.File]bool{}, failed: make(chan struct{})}
	s.mu.SetClass("worker.splitStreams")
	for _, sp := range splits[:len(fifos)] {
		s.total += sp.GetLength()
	}
	for i := range fifos {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.feed(fifos[i], splits[i])
		}()
	}
	return s
}

// feed writes one split into its pipe once a reader has opened it.
func (s *splitStreams) feed(fifo string, sp *ebbpb.InputSplit) {
	// Blocks until the task (or stop) opens the read end.
	out, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		s.fail(fmt.Errorf("opening named pipe %s: %w", fifo, err))
		return
	}
	if !s.track(out) {
		_ = out.Close() // stopped: the reader is stop's, nobody reads
		return
	}
	n, err := s.copy(out, sp)
	s.untrack(out)
	// Closing is what gives the task its end of file. A close error on a
	// pipe loses nothing the task has not already been handed.
	_ = out.Close()
	log := s.log.WithFields(logrus.Fields{"split": sp.GetPath(), "offset": sp.GetOffset(), "length": sp.GetLength(), "bytes": n})
	var se *sinkError
	if errors.As(err, &se) {
		// The task closed its end (EPIPE) or stop cut the write short:
		// the task's exit code decides, not the worker.
		log.WithError(err).Info("input split streamed in part: the task stopped reading")
		return
	}
	if err != nil {
		s.fail(fmt.Errorf("%s [%d+%d]: %w", sp.GetPath(), sp.GetOffset(), sp.GetLength(), err))
		return
	}
	log.Info("input split streamed")
}

// copy streams the split's lines into out, opening the split only now
// that someone reads.
func (s *splitStreams) copy(out io.Writer, sp *ebbpb.InputSplit) (int64, error) {
	in, err := s.open(sp.GetPath())
	if err != nil {
		return 0, err
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	return copyInputSplit(sinkWriter{out, &s.sent}, in, sp)
}

// progress is the share of the splits' bytes streamed so far, below 1
// until the task ends (the last line of a split may run past its length,
// and the task still has to finish with what it read); false when the
// splits are empty.
func (s *splitStreams) progress() (float32, bool) {
	if s == nil || s.total <= 0 {
		return 0, false
	}
	return float32(min(float64(s.sent.Load())/float64(s.total), 0.99)), true
}

// track records an open write end so stop can cut its writes short; false
// once stopped.
func (s *splitStreams) track(f *os.File) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false
	}
	s.writing[f] = true
	return true
}

func (s *splitStreams) untrack(f *os.File) {
	s.mu.Lock()
	delete(s.writing, f)
	s.mu.Unlock()
}

// fail records the first error reading a split and closes failed.
func (s *splitStreams) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
		close(s.failed)
	}
}

// stop releases every writer once the command has exited and returns the
// first error reading a split (nil when every split was read, or when the
// task stopped reading on its own).
//
// A writer can be in one of three places: not yet at its open, blocked in
// its open (no reader came), or writing. stop marks the streams stopped,
// then opens each pipe's read end itself without blocking: a writer in or
// before its open gets through it, sees stopped and closes. Writers
// already writing get a write deadline in the past, which ends a write
// blocked on a full pipe (stop's read end keeps EPIPE away). The read
// ends are closed when every writer has returned.
func (s *splitStreams) stop() error {
	s.mu.Lock()
	s.stopped = true
	for f := range s.writing {
		// Fails only for a file without deadlines; a pipe has them.
		_ = f.SetWriteDeadline(time.Unix(1, 0))
	}
	s.mu.Unlock()
	var readers []int
	for _, p := range s.fifos {
		fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			readers = append(readers, fd)
		}
	}
	s.wg.Wait()
	for _, fd := range readers {
		_ = syscall.Close(fd) // a read end with nothing to lose
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// sinkError marks a failed write to the pipe, as opposed to a failed read
// of the split.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return "writing to the task's pipe: " + e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// sinkWriter writes into a pipe, counting what it wrote into sent and
// marking its errors as the pipe's (sinkError).
type sinkWriter struct {
	w    io.Writer
	sent *atomic.Int64
}

func (w sinkWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.sent.Add(int64(n))
	if err != nil {
		err = &sinkError{err}
	}
	return n, err
}
