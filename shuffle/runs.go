package shuffle

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Source yields records in the order of some comparator.
type Source interface {
	// Next returns the next record, valid until the following call, or
	// io.EOF after the last one.
	Next() (key, value []byte, err error)
}

// Compare orders keys: negative, zero or positive.
type Compare func(a, b []byte) int

// RunWriter writes records in the partition file format (package
// comment) through a 64 KiB buffer.
type RunWriter struct {
	bw  *bufio.Writer
	buf []byte
	// Records and Bytes count what was written.
	Records, Bytes int64
}

// NewRunWriter writes to w; Flush before closing w.
func NewRunWriter(w io.Writer) *RunWriter {
	return &RunWriter{bw: bufio.NewWriterSize(w, 64<<10)}
}

func (w *RunWriter) Write(key, value []byte) error {
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(key)))
	w.buf = append(w.buf, key...)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(value)))
	w.buf = append(w.buf, value...)
	n, err := w.bw.Write(w.buf)
	w.Bytes += int64(n)
	w.Records++
	if err != nil {
		return fmt.Errorf("writing sorted records: %w", err)
	}
	return nil
}

// Flush writes out what is buffered.
func (w *RunWriter) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("writing sorted records: %w", err)
	}
	return nil
}

// ErrCorruptRun means a partition file ended inside a record.
var ErrCorruptRun = errors.New("sorted records end inside a record")

// RunReader reads records in the partition file format.
type RunReader struct {
	br         *bufio.Reader
	name       string
	key, value []byte
}

// NewRunReader reads r through a buffer of size bytes; name is for errors.
func NewRunReader(r io.Reader, size int, name string) *RunReader {
	return &RunReader{br: bufio.NewReaderSize(r, size), name: name}
}

func (r *RunReader) Next() ([]byte, []byte, error) {
	var err error
	if r.key, err = r.field(r.key, true); err != nil {
		return nil, nil, err
	}
	if r.value, err = r.field(r.value, false); err != nil {
		return nil, nil, err
	}
	return r.key, r.value, nil
}

// field reads one length-prefixed field into buf; io.EOF is the clean end
// only before a key.
func (r *RunReader) field(buf []byte, first bool) ([]byte, error) {
	size, err := binary.ReadUvarint(r.br)
	if err == io.EOF && first {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.name, ErrCorruptRun)
	}
	buf = slices.Grow(buf[:0], int(size))[:size]
	if _, err := io.ReadFull(r.br, buf); err != nil {
		return nil, fmt.Errorf("%s: %w", r.name, ErrCorruptRun)
	}
	return buf, nil
}
