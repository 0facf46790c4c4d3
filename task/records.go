package task

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// Fixed-length binary records, as TeraGen writes them (and TeraValidate
// reads them): RecordLength bytes each, the first KeyLength the key, with
// no separators, so any byte value may appear anywhere.
const (
	KeyLength    = 10
	RecordLength = 100
)

// errPartialRecord means an input ended inside a record.
var errPartialRecord = errors.New("input ends inside a record")

// readRecords calls fn for every size-byte record of the file at path,
// the slice valid only during the call, and says how many bytes it read.
// fn may return errStopReading to stop early (a named pipe may be left
// unread: the worker takes that as the task's choice).
func readRecords(path string, size int, fn func(rec []byte) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }() // read-only: a read error is already returned
	br := bufio.NewReaderSize(f, 256<<10)
	rec := make([]byte, size)
	var n int64
	for {
		k, err := io.ReadFull(br, rec)
		n += int64(k)
		switch {
		case err == io.EOF:
			return n, nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return n, fmt.Errorf("reading %s: %w (%d bytes of a %d-byte record at byte %d)", path, errPartialRecord, k, size, n-int64(k))
		case err != nil:
			return n, fmt.Errorf("reading %s: %w", path, err)
		}
		if err := fn(rec); err != nil {
			return n, err
		}
	}
}

// errStopReading, returned by a readRecords callback, ends the read with
// no error.
var errStopReading = errors.New("stop reading")

// readRecordFiles reads the records of every file in turn, writing
// progress as the share of their bytes read; errStopReading from fn ends
// it early and successfully.
func (c *Context) readRecordFiles(files []string, size int, fn func(rec []byte) error) error {
	meter := newProgressMeter(c, files)
	for _, f := range files {
		n, err := readRecords(f, size, fn)
		meter.add(n)
		if errors.Is(err, errStopReading) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}
