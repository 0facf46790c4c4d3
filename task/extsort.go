package task

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The external sort of the built-ins that buffer records (wc-map,
// wc-reduce, sort), in MapReduce's manner: records pile up in memory up to
// a budget (budget.go), are sorted and written to the attempt's working
// directory as a run, and at the end the runs and what is still in memory
// are merged with a heap into one sorted stream. Equal keys are combined
// while merging by summing their counts, so a run of words becomes one
// "word count" per word and a run of lines one "line ×n" per distinct line.
//
// A record is a key and a count. On disk a run is a sequence of
//
//	uvarint(len(key)) key varint(count)
//
// in increasing key order (bytewise), so records need no escaping and a
// reader needs no separators.

// recordSource yields records in nondecreasing key order.
type recordSource interface {
	// next returns the next record, its key valid until the following
	// call, or io.EOF after the last one.
	next() (key []byte, n int64, err error)
	// close releases the source's file, if any.
	close() error
}

// run is a sorted sequence of records that can be opened once for a
// merge. Runs are opened only when merged, so a merge holds open files
// only for the runs of one pass (defaultFanIn).
type run interface {
	open() (recordSource, error)
}

// defaultFanIn is how many runs one merge pass reads at once (MapReduce's
// io.sort.factor): each costs an open file and a 64 KiB read buffer, so 64
// of them take 4 MiB, well inside the room budget.go leaves beside the
// buffer. More runs than this are merged in several passes.
const defaultFanIn = 64

// probeEvery is how many merged keys pass between calls of the test probe.
const probeEvery = 1 << 12

// sortOptions are knobs for tests; the zero value means the defaults.
type sortOptions struct {
	// fanIn replaces defaultFanIn, to force multi-pass merges.
	fanIn int
	// probe, if set, is called when buffered records peak (before each
	// spill) and every probeEvery keys of a merge, so a test can measure
	// the heap at those moments.
	probe func()
	// stats, if set, counts what the sort did, so a test can see that a
	// small budget really spilled.
	stats *sortStats
}

// sortStats counts spills and merge passes.
type sortStats struct {
	spills, passes int
}

// externalSorter holds the runs spilled so far and merges them. Its
// directory is made at the first spill, under the attempt's working
// directory (never under output/, which is served), and removed by cleanup.
type externalSorter struct {
	parent string
	dir    string
	runs   []run
	seq    int
	opts   sortOptions
}

func newExternalSorter(c *Context) *externalSorter {
	parent := c.WorkDir
	if parent == "" {
		parent = "." // the worker starts tasks in EBB_WORK_DIR
	}
	opts := c.sortOpts
	if opts.fanIn < 2 {
		opts.fanIn = defaultFanIn
	}
	return &externalSorter{parent: parent, opts: opts}
}

// cleanup removes the spilled runs. Its error is not the task's: the worker
// removes the attempt's directory anyway, runs only cost disk until then.
func (s *externalSorter) cleanup() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// peak tells the test probe, if any, that buffered records are at a peak.
func (s *externalSorter) peak() {
	if s.opts.probe != nil {
		s.opts.probe()
	}
}

// spill writes src, which must be sorted, as a new run.
func (s *externalSorter) spill(src recordSource) error {
	s.peak()
	if s.opts.stats != nil {
		s.opts.stats.spills++
	}
	r, err := s.writeRun(func(w *runWriter) error { return copyRecords(src, w.write) })
	if err != nil {
		return err
	}
	s.runs = append(s.runs, r)
	return nil
}

// writeRun creates a run file and has fill write it.
func (s *externalSorter) writeRun(fill func(*runWriter) error) (fileRun, error) {
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.parent, "spill-")
		if err != nil {
			return "", fmt.Errorf("making a directory for sorted runs: %w", err)
		}
		s.dir = dir
	}
	path := filepath.Join(s.dir, strconv.Itoa(s.seq))
	s.seq++
	w, err := createRun(path)
	if err != nil {
		return "", err
	}
	if err := fill(w); err != nil {
		_ = w.close() // the run is abandoned with the task; fill's error says why
		return "", err
	}
	if err := w.close(); err != nil {
		return "", err
	}
	return fileRun(path), nil
}

// merge streams the spilled runs and more (runs not spilled: what is
// still in memory, or inputs that come sorted) to emit in key order, one
// call per distinct key with the sum of its counts. Beyond fanIn runs, the
// oldest fanIn are first merged into a new run, until one pass can read
// them all.
func (s *externalSorter) merge(emit func(key []byte, n int64) error, more ...run) error {
	runs := append(slices.Clone(s.runs), more...)
	for len(runs) > s.opts.fanIn {
		group := runs[:s.opts.fanIn]
		merged, err := s.writeRun(func(w *runWriter) error { return s.mergeRuns(group, w.write) })
		if err != nil {
			return err
		}
		for _, r := range group {
			if f, ok := r.(fileRun); ok {
				_ = os.Remove(string(f)) // consumed; cleanup would remove it later anyway
			}
		}
		runs = append(slices.Clone(runs[s.opts.fanIn:]), merged)
	}
	return s.mergeRuns(runs, emit)
}

// mergeRuns opens runs and merges them in one pass.
func (s *externalSorter) mergeRuns(runs []run, emit func(key []byte, n int64) error) error {
	if s.opts.stats != nil {
		s.opts.stats.passes++
	}
	srcs := make([]recordSource, 0, len(runs))
	defer func() {
		for _, src := range srcs {
			_ = src.close() // read-only: closing cannot lose data
		}
	}()
	for _, r := range runs {
		src, err := r.open()
		if err != nil {
			return err
		}
		srcs = append(srcs, src)
	}
	return mergeSources(srcs, emit, s.opts.probe)
}

// mergeSources is the k-way merge: a min-heap holds the current record of
// every source; the smallest is taken, added to the key being combined,
// and replaced by its source's next record.
func mergeSources(srcs []recordSource, emit func(key []byte, n int64) error, probe func()) error {
	h := make(mergeHeap, 0, len(srcs))
	for _, src := range srcs {
		key, n, err := src.next()
		if err == io.EOF {
			continue
		}
		if err != nil {
			return err
		}
		h = append(h, mergeItem{key: key, n: n, src: src})
	}
	heap.Init(&h)
	var cur []byte
	var sum int64
	have := false
	keys := 0
	for len(h) > 0 {
		top := &h[0]
		if have && bytes.Equal(top.key, cur) {
			sum += top.n
		} else {
			if have {
				if err := emit(cur, sum); err != nil {
					return err
				}
				if keys++; probe != nil && keys%probeEvery == 0 {
					probe()
				}
			}
			// Copied: the source reuses the key's memory on its next call.
			cur = append(cur[:0], top.key...)
			sum, have = top.n, true
		}
		key, n, err := top.src.next()
		switch {
		case err == io.EOF:
			heap.Pop(&h)
		case err != nil:
			return err
		default:
			top.key, top.n = key, n
			heap.Fix(&h, 0)
		}
	}
	if have {
		return emit(cur, sum)
	}
	return nil
}

type mergeItem struct {
	key []byte
	n   int64
	src recordSource
}

// mergeHeap orders sources by their current key (container/heap).
type mergeHeap []mergeItem

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return bytes.Compare(h[i].key, h[j].key) < 0 }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// copyRecords writes every record of src with write, then closes src.
func copyRecords(src recordSource, write func(key []byte, n int64) error) error {
	for {
		key, n, err := src.next()
		if err == io.EOF {
			return src.close()
		}
		if err == nil {
			err = write(key, n)
		}
		if err != nil {
			_ = src.close() // the copy failed already; that error says why
			return err
		}
	}
}

// fileRun is a run spilled to a file.
type fileRun string

func (f fileRun) open() (recordSource, error) {
	file, err := os.Open(string(f))
	if err != nil {
		return nil, fmt.Errorf("opening sorted run: %w", err)
	}
	return &runReader{f: file, br: bufio.NewReaderSize(file, 64<<10)}, nil
}

// memRun is a run still in memory: a source opened once.
type memRun struct{ src recordSource }

func (m memRun) open() (recordSource, error) { return m.src, nil }

// runWriter writes records to a run file.
type runWriter struct {
	f   *os.File
	bw  *bufio.Writer
	buf []byte
}

func createRun(path string) (*runWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating sorted run: %w", err)
	}
	return &runWriter{f: f, bw: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (w *runWriter) write(key []byte, n int64) error {
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(key)))
	w.buf = append(w.buf, key...)
	w.buf = binary.AppendVarint(w.buf, n)
	if _, err := w.bw.Write(w.buf); err != nil {
		return fmt.Errorf("writing sorted run: %w", err)
	}
	return nil
}

// close flushes and closes the file: a run that did not reach the disk
// would lose records, so its error fails the task.
func (w *runWriter) close() error {
	err := w.bw.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing sorted run: %w", err)
	}
	return nil
}

// runReader reads a run file.
type runReader struct {
	f   *os.File
	br  *bufio.Reader
	key []byte
}

// errCorruptRun means a run file ended inside a record.
var errCorruptRun = errors.New("sorted run ends inside a record")

func (r *runReader) next() ([]byte, int64, error) {
	size, err := binary.ReadUvarint(r.br)
	if err != nil {
		return nil, 0, err // io.EOF exactly at a record boundary is the end
	}
	r.key = slices.Grow(r.key[:0], int(size))[:size]
	if _, err := io.ReadFull(r.br, r.key); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", r.f.Name(), errCorruptRun)
	}
	n, err := binary.ReadVarint(r.br)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", r.f.Name(), errCorruptRun)
	}
	return r.key, n, nil
}

func (r *runReader) close() error { return r.f.Close() }

// writeMerged opens c's writers and writes the merge of the sorter's
// spilled runs and last into them, each record as often as it occurred,
// through emit (a line or a fixed-length record); on an error the outputs
// are closed and the task fails, so they are discarded.
func writeMerged(c *Context, sorter *externalSorter, last run, emit func(ws *Writers, rec []byte) error) error {
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	err = sorter.merge(func(rec []byte, n int64) error {
		for range n {
			if err := emit(ws, rec); err != nil {
				return err
			}
		}
		return nil
	}, last)
	if err != nil {
		_ = ws.Close() // the task fails with err; its outputs are discarded
		return err
	}
	return ws.Close()
}
