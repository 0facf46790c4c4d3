package task

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// teraReduce sorts every record of its inputs (the partitions the
// tera-maps sent it) and writes them, in order, to its sink output.
// Records are buffered up to the spill budget, spilled as sorted runs and
// merged (extsort.go), so any partition size fits any ask.
func teraReduce(c *Context, args []string) error {
	if err := noFlags("tera-reduce", args); err != nil {
		return err
	}
	if !c.IsSink() {
		return fmt.Errorf("tera-reduce writes the sorted output: make it a sink vertex (no outgoing edges)")
	}
	files, err := c.InputFiles()
	if err != nil {
		return err
	}
	sorter := newExternalSorter(c)
	defer sorter.cleanup()
	buf := newRecordBuffer(c.spillBudget(), sorter)
	if err := c.readRecordFiles(files, RecordLength, buf.add); err != nil {
		return err
	}
	sink := func(int) int { return 0 }
	return writeMerged(c, sorter, memRun{buf.sorted()}, func(ws *Writers, rec []byte) error {
		return ws.EmitRecord(rec, sink)
	})
}

// recordEntryBytes is what one buffered record costs beside its bytes:
// its 16-byte entry, and as much again while append grows the entries.
const recordEntryBytes = 32

// recordBuffer holds RecordLength-byte records up to a budget in chunks
// of whole records, and sorts them through entries that carry each
// record's first KeyLength bytes as numbers: comparing two entries is two
// integer compares, and the records themselves are touched only when
// their keys tie.
type recordBuffer struct {
	chunks   [][]byte // kept from one spill to the next
	perChunk int      // records per chunk
	n        int      // records buffered
	ents     []recordEntry
	bytes    int64
	budget   int64
	sorter   *externalSorter
}

type recordEntry struct {
	hi  uint64 // key bytes 0..7, big-endian: orders as the bytes do
	idx uint32 // the record's place in the buffer
	lo  uint16 // key bytes 8..9
}

func newRecordBuffer(budget int64, sorter *externalSorter) *recordBuffer {
	// Chunks of about an eighth of the budget, at most 1 MiB: small enough
	// that the last, partly filled chunk wastes little of the budget, large
	// enough that allocating them costs nothing.
	per := max(int(min(budget/8, 1<<20))/RecordLength, 1)
	return &recordBuffer{perChunk: per, budget: budget, sorter: sorter}
}

// add buffers a copy of rec (RecordLength bytes), spilling first when it
// would not fit.
func (b *recordBuffer) add(rec []byte) error {
	if b.n > 0 && b.bytes+RecordLength+recordEntryBytes > b.budget {
		if err := b.spill(); err != nil {
			return err
		}
	}
	c := b.n / b.perChunk
	if c == len(b.chunks) {
		b.chunks = append(b.chunks, make([]byte, b.perChunk*RecordLength))
	}
	if b.n%b.perChunk == 0 {
		b.bytes += int64(b.perChunk * RecordLength)
	}
	off := (b.n % b.perChunk) * RecordLength
	copy(b.chunks[c][off:off+RecordLength], rec)
	b.ents = append(b.ents, recordEntry{
		hi:  binary.BigEndian.Uint64(rec),
		lo:  binary.BigEndian.Uint16(rec[8:]),
		idx: uint32(b.n),
	})
	b.n++
	b.bytes += recordEntryBytes
	return nil
}

func (b *recordBuffer) record(idx uint32) []byte {
	off := int(idx) % b.perChunk * RecordLength
	return b.chunks[int(idx)/b.perChunk][off : off+RecordLength]
}

func (b *recordBuffer) spill() error {
	if err := b.sorter.spill(b.sorted()); err != nil {
		return err
	}
	b.ents, b.n, b.bytes = b.ents[:0], 0, 0
	return nil
}

// sorted sorts the buffered records bytewise and reads them in order.
func (b *recordBuffer) sorted() recordSource {
	slices.SortFunc(b.ents, func(x, y recordEntry) int {
		if c := cmp.Compare(x.hi, y.hi); c != 0 {
			return c
		}
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		return bytes.Compare(b.record(x.idx), b.record(y.idx))
	})
	return &recordBufferSource{b: b}
}

type recordBufferSource struct {
	b *recordBuffer
	i int
}

func (s *recordBufferSource) next() ([]byte, int64, error) {
	if s.i >= len(s.b.ents) {
		return nil, 0, io.EOF
	}
	s.i++
	return s.b.record(s.b.ents[s.i-1].idx), 1, nil
}

func (s *recordBufferSource) close() error { return nil }
