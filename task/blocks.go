package task

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// blockSize is how much readBlocks reads at a time: large enough that a
// read costs nothing per line, small enough to stay in the core's L2
// cache while it is scanned.
const blockSize = 256 << 10

// readBlocks calls fn with the text of every input file in blocks of
// whole lines (each but a file's last ends in "\n"), valid only during
// the call. It is ReadLines for tasks that need no line boundaries: the
// text is read once into one buffer and scanned there, without a call per
// line. A line longer than the buffer grows it (lines are held whole, as
// ReadLines holds them). Progress is the fraction of input bytes read.
func (c *Context) readBlocks(fn func(file string, block []byte) error) error {
	files, err := c.InputFiles()
	if err != nil {
		return err
	}
	meter := newProgressMeter(c, files)
	buf := make([]byte, blockSize)
	for _, f := range files {
		if buf, err = readFileBlocks(f, buf, meter, func(b []byte) error { return fn(f, b) }); err != nil {
			return err
		}
	}
	return nil
}

// readFileBlocks reads one file with buf (returned, perhaps grown).
func readFileBlocks(path string, buf []byte, meter *progressMeter, fn func([]byte) error) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	// Opened read-only: Close cannot lose data, and a read error is already
	// returned by the loop below.
	defer func() { _ = f.Close() }()
	held := 0 // bytes at buf's start: the last, unfinished line
	for {
		if held == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := f.Read(buf[held:])
		meter.add(int64(n))
		held += n
		if errors.Is(err, io.EOF) {
			if held == 0 {
				return buf, nil
			}
			return buf, fn(buf[:held])
		}
		if err != nil {
			return buf, fmt.Errorf("reading %s: %w", path, err)
		}
		end := bytes.LastIndexByte(buf[:held], '\n') + 1
		if end == 0 {
			continue
		}
		if err := fn(buf[:end]); err != nil {
			return buf, err
		}
		held = copy(buf, buf[end:held])
	}
}
