package shuffle

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Config says how a Collector partitions, orders, buffers and combines.
type Config struct {
	// Partitions is the number of consumers' partitions (≥ 1).
	Partitions  int
	Partitioner Partitioner
	// Compare orders keys within a partition (nil: bytes.Compare).
	Compare Compare
	// BufferBytes bounds the records held in memory (keys, values and
	// 16 bytes of bookkeeping each) before they are sorted and spilled.
	BufferBytes int64
	// Dir is where spills go (created if needed); never under what the
	// worker serves.
	Dir string
	// Combine, if set, runs over each partition of each spill: it reads
	// the partition's sorted records and emits what is written instead,
	// in its own order (Hadoop's combiner).
	Combine func(in Source, emit func(key, value []byte) error) error
	// CombineMinSpills: with a combiner and at least this many spills, the
	// final merge of each partition runs through the combiner too
	// (Hadoop's mapreduce.map.combine.minspills; 0: its default, 3).
	CombineMinSpills int
}

// DefaultCombineMinSpills is Hadoop's mapreduce.map.combine.minspills.
const DefaultCombineMinSpills = 3

// Stats counts what a Collector did.
type Stats struct {
	Records, Spills, CombineRuns int64
	// MaxBuffered is the most bytes buffered at once (BufferBytes' measure).
	MaxBuffered int64
}

// metaSize is the bookkeeping a buffered record costs (a meta).
const metaSize = 16

type meta struct {
	part       int32
	off        int32 // into the arena; key then value
	klen, vlen int32
}

// Collector takes a producer's records one by one and leaves one sorted
// file per partition: it buffers up to the budget, sorts by partition and
// key (stable: equal keys keep the order they came in), spills, and at
// Finish merges the spills.
type Collector struct {
	cfg    Config
	arena  []byte
	metas  []meta
	spills []spill
	Stats  Stats
}

// spill is one sorted run on disk: partition p is bytes
// [index[p], index[p+1]) of the file.
type spill struct {
	path  string
	index []int64
}

// NewCollector starts an empty collector.
func NewCollector(cfg Config) *Collector {
	if cfg.Compare == nil {
		cfg.Compare = bytes.Compare
	}
	if cfg.Partitioner == nil {
		cfg.Partitioner = HashPartitioner{}
	}
	cfg.Partitions = max(cfg.Partitions, 1)
	cfg.BufferBytes = max(cfg.BufferBytes, 1<<16)
	return &Collector{cfg: cfg}
}

// Add buffers one record, spilling first when the buffer is full.
func (c *Collector) Add(key, value []byte) error {
	p := 0
	if c.cfg.Partitions > 1 {
		p = c.cfg.Partitioner.Partition(key, c.cfg.Partitions)
		if p < 0 || p >= c.cfg.Partitions {
			return fmt.Errorf("illegal partition %d for key %q of %d partitions", p, key, c.cfg.Partitions)
		}
	}
	need := int64(len(key) + len(value) + metaSize)
	if len(c.metas) > 0 && c.buffered()+need > c.cfg.BufferBytes {
		if err := c.spill(); err != nil {
			return err
		}
	}
	if len(c.arena)+len(key)+len(value) > 1<<31-1 {
		return fmt.Errorf("a record of %d bytes does not fit the sort buffer", len(key)+len(value))
	}
	off := len(c.arena)
	c.arena = append(append(c.arena, key...), value...)
	c.metas = append(c.metas, meta{part: int32(p), off: int32(off), klen: int32(len(key)), vlen: int32(len(value))})
	c.Stats.Records++
	c.Stats.MaxBuffered = max(c.Stats.MaxBuffered, c.buffered())
	return nil
}

func (c *Collector) buffered() int64 {
	return int64(len(c.arena)) + int64(len(c.metas))*metaSize
}

func (c *Collector) key(m meta) []byte {
	return c.arena[m.off : m.off+m.klen]
}

func (c *Collector) value(m meta) []byte {
	return c.arena[m.off+m.klen : m.off+m.klen+m.vlen]
}

// sortBuffer orders the buffered records by partition, then key.
func (c *Collector) sortBuffer() {
	slices.SortStableFunc(c.metas, func(a, b meta) int {
		if a.part != b.part {
			return int(a.part - b.part)
		}
		return c.cfg.Compare(c.key(a), c.key(b))
	})
}

// memSource yields buffered records metas[i:j].
type memSource struct {
	c    *Collector
	ms   []meta
	next int
}

func (s *memSource) Next() ([]byte, []byte, error) {
	if s.next >= len(s.ms) {
		return nil, nil, io.EOF
	}
	m := s.ms[s.next]
	s.next++
	return s.c.key(m), s.c.value(m), nil
}

// partitionRange is where partition p's records are in the sorted metas.
func (c *Collector) partitionRange(p int) []meta {
	lo, _ := slices.BinarySearchFunc(c.metas, int32(p), func(m meta, t int32) int { return int(m.part - t) })
	hi, _ := slices.BinarySearchFunc(c.metas, int32(p+1), func(m meta, t int32) int { return int(m.part - t) })
	return c.metas[lo:hi]
}

// writePartition writes the sorted buffered records of partition p to w,
// through the combiner if there is one.
func (c *Collector) writePartition(p int, w *RunWriter) error {
	ms := c.partitionRange(p)
	if len(ms) == 0 {
		return nil
	}
	src := &memSource{c: c, ms: ms}
	if c.cfg.Combine != nil {
		c.Stats.CombineRuns++
		return c.cfg.Combine(src, w.Write)
	}
	for _, m := range ms {
		if err := w.Write(c.key(m), c.value(m)); err != nil {
			return err
		}
	}
	return nil
}

// spill sorts the buffer and writes it as one run file with an index.
func (c *Collector) spill() error {
	c.sortBuffer()
	if err := os.MkdirAll(c.cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("making the spill directory: %w", err)
	}
	path := filepath.Join(c.cfg.Dir, "spill-"+strconv.Itoa(len(c.spills)))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating spill: %w", err)
	}
	w := NewRunWriter(f)
	sp := spill{path: path, index: make([]int64, 0, c.cfg.Partitions+1)}
	for p := range c.cfg.Partitions {
		if err := w.Flush(); err != nil {
			_ = f.Close() // the spill is abandoned with the attempt
			return err
		}
		sp.index = append(sp.index, w.Bytes)
		if err := c.writePartition(p, w); err != nil {
			_ = f.Close()
			return err
		}
	}
	sp.index = append(sp.index, w.Bytes)
	err = w.Flush()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing spill: %w", cerr)
	}
	if err != nil {
		return err
	}
	c.spills = append(c.spills, sp)
	c.Stats.Spills++
	c.arena, c.metas = c.arena[:0], c.metas[:0]
	return nil
}

// Finish writes every partition, 0 to Partitions-1, each into the file
// dst opens for it (every partition gets one, empty when it has no
// records): straight from memory when nothing was spilled, else merged
// from the spills.
func (c *Collector) Finish(dst func(p int) (io.WriteCloser, error)) error {
	if len(c.spills) == 0 {
		c.sortBuffer()
		return c.eachPartition(dst, c.writePartition)
	}
	if len(c.metas) > 0 {
		if err := c.spill(); err != nil {
			return err
		}
	}
	files := make([]*os.File, len(c.spills))
	defer func() {
		for _, f := range files {
			if f != nil {
				_ = f.Close() // read-only
			}
		}
	}()
	for i, sp := range c.spills {
		f, err := os.Open(sp.path)
		if err != nil {
			return fmt.Errorf("opening spill: %w", err)
		}
		files[i] = f
	}
	minSpills := c.cfg.CombineMinSpills
	if minSpills <= 0 {
		minSpills = DefaultCombineMinSpills
	}
	return c.eachPartition(dst, func(p int, w *RunWriter) error {
		srcs := make([]Source, len(c.spills))
		for i, sp := range c.spills {
			sec := io.NewSectionReader(files[i], sp.index[p], sp.index[p+1]-sp.index[p])
			srcs[i] = NewRunReader(sec, 32<<10, sp.path)
		}
		if c.cfg.Combine == nil || len(c.spills) < minSpills {
			return Merge(srcs, c.cfg.Compare, w.Write)
		}
		// As MapTask.mergeParts: many spills, so the combiner runs again
		// over the merge (for a non-empty partition, as over a spill).
		m, err := NewMergeSource(srcs, c.cfg.Compare)
		if err != nil || m.Empty() {
			return err
		}
		c.Stats.CombineRuns++
		return c.cfg.Combine(m, w.Write)
	})
}

func (c *Collector) eachPartition(dst func(p int) (io.WriteCloser, error), fill func(p int, w *RunWriter) error) error {
	for p := range c.cfg.Partitions {
		f, err := dst(p)
		if err != nil {
			return err
		}
		w := NewRunWriter(f)
		err = fill(p, w)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing partition %d: %w", p, cerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Cleanup removes the spills.
func (c *Collector) Cleanup() {
	for _, sp := range c.spills {
		_ = os.Remove(sp.path) // the attempt's directory goes anyway
	}
}
