package task

import (
	"bytes"
	"io"
	"slices"
)

// sortLines sorts every input line bytewise. Lines are buffered up to the
// spill budget, spilled as sorted runs, and merged; equal lines travel as
// one record with a count. With range partitioning by the first byte,
// partition p of every consumer holds only lines that sort before those
// of partition p+1.
func sortLines(c *Context, args []string) error {
	if err := noFlags("sort", args); err != nil {
		return err
	}
	sorter := newExternalSorter(c)
	defer sorter.cleanup()
	buf := newLineBuffer(c.spillBudget(), sorter)
	if err := c.ReadLines(func(_ string, line []byte) error { return buf.add(line) }); err != nil {
		return err
	}
	return writeMerged(c, sorter, memRun{buf.sorted()}, func(ws *Writers, line []byte) error {
		return ws.Emit(line, func(parts int) int { return RangePartition(line, parts) })
	})
}

// lineEntryBytes is what one buffered line costs beside its bytes: its
// 24-byte slice header in lineBuffer.lines, and as much again while append
// grows that slice (old and new arrays are both live for a moment), with
// some to spare.
const lineEntryBytes = 64

// lineBuffer holds lines up to a budget, copied into an arena of chunks so
// that a line costs no allocation of its own, and spills them as sorted
// runs.
type lineBuffer struct {
	chunks    [][]byte // the arena, kept from one spill to the next
	used      int      // chunks[:used] hold lines of this buffer
	chunkSize int
	lines     [][]byte
	// bytes estimates the memory held: the chunks in use, lines too long
	// for a chunk, and lineEntryBytes per line.
	bytes  int64
	budget int64
	sorter *externalSorter
}

func newLineBuffer(budget int64, sorter *externalSorter) *lineBuffer {
	// Chunks of an eighth of the budget, within 4 KiB..1 MiB: small enough
	// that a half-filled chunk wastes little of the budget, large enough
	// that allocating them costs nothing.
	return &lineBuffer{chunkSize: int(min(max(budget/8, 4<<10), 1<<20)), budget: budget, sorter: sorter}
}

// add buffers a copy of line, spilling first when it would not fit.
func (b *lineBuffer) add(line []byte) error {
	if len(b.lines) > 0 && b.bytes+int64(len(line))+lineEntryBytes > b.budget {
		if err := b.spill(); err != nil {
			return err
		}
	}
	b.lines = append(b.lines, b.store(line))
	b.bytes += lineEntryBytes
	return nil
}

// store copies line into the arena, or into an allocation of its own when
// it is longer than a quarter chunk (so that skipping to a new chunk
// wastes at most a quarter of one).
func (b *lineBuffer) store(line []byte) []byte {
	if len(line) > b.chunkSize/4 {
		b.bytes += int64(len(line))
		return bytes.Clone(line)
	}
	if b.used == 0 || cap(b.chunks[b.used-1])-len(b.chunks[b.used-1]) < len(line) {
		if b.used == len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, 0, b.chunkSize))
		}
		b.used++
		b.bytes += int64(b.chunkSize)
	}
	c := &b.chunks[b.used-1]
	start := len(*c)
	*c = append(*c, line...)
	return (*c)[start:len(*c):len(*c)]
}

func (b *lineBuffer) spill() error {
	if err := b.sorter.spill(b.sorted()); err != nil {
		return err
	}
	clear(b.lines) // or the long lines could not be collected
	b.lines = b.lines[:0]
	for i := range b.chunks[:b.used] {
		b.chunks[i] = b.chunks[i][:0]
	}
	b.used, b.bytes = 0, 0
	return nil
}

// sorted sorts the buffered lines and reads them as records, equal lines
// as one record counting them.
func (b *lineBuffer) sorted() recordSource {
	slices.SortFunc(b.lines, bytes.Compare)
	return &lineSource{lines: b.lines}
}

type lineSource struct{ lines [][]byte }

func (s *lineSource) next() ([]byte, int64, error) {
	if len(s.lines) == 0 {
		return nil, 0, io.EOF
	}
	line := s.lines[0]
	n := 1
	for n < len(s.lines) && bytes.Equal(s.lines[n], line) {
		n++
	}
	s.lines = s.lines[n:]
	return line, int64(n), nil
}

func (s *lineSource) close() error { return nil }
