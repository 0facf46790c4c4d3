package task

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// lineReader splits a stream into lines ending in "\n" or "\r\n" (the last
// line may have no end), pulled one at a time, so a k-way merge can read
// many files in step. Lines of any length are returned whole.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	// n is the number of bytes consumed so far, line ends included.
	n int64
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its end, valid until the following
// call, or io.EOF after the last one.
func (lr *lineReader) next() ([]byte, error) {
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.n += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.long = append(lr.long, chunk...)
			continue
		}
		line := chunk
		if len(lr.long) > 0 {
			line = append(lr.long, chunk...)
			lr.long = line[:0]
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(line) > 0 {
			return trimEOL(line), nil
		}
		if err == io.EOF {
			return nil, io.EOF
		}
	}
}

func readFileLines(path string, fn func([]byte) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	// Opened read-only: Close cannot lose data, and a read error is already
	// returned by the loop below.
	defer func() { _ = f.Close() }()
	lr := newLineReader(f)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return lr.n, nil
		}
		if err != nil {
			return lr.n, fmt.Errorf("reading %s: %w", path, err)
		}
		if err := fn(line); err != nil {
			return lr.n, err
		}
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
