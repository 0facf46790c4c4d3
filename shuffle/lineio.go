package shuffle

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// LineWriter writes records as "key SEP value\n", the way Streaming feeds
// a reducer or combiner and TextOutputFormat writes a Text record: the
// separator is there even when the value is empty.
type LineWriter struct {
	bw  *bufio.Writer
	sep []byte
	// Records counts the records written.
	Records int64
}

// NewLineWriter writes to w with separator sep (empty: TAB).
func NewLineWriter(w io.Writer, sep []byte) *LineWriter {
	if len(sep) == 0 {
		sep = []byte{'\t'}
	}
	return &LineWriter{bw: bufio.NewWriterSize(w, 64<<10), sep: sep}
}

func (w *LineWriter) Write(key, value []byte) error {
	w.Records++
	_, _ = w.bw.Write(key) // bufio keeps the first error; Flush reports it
	_, _ = w.bw.Write(w.sep)
	_, _ = w.bw.Write(value)
	return w.bw.WriteByte('\n')
}

// Flush writes out what is buffered.
func (w *LineWriter) Flush() error { return w.bw.Flush() }

// InputFormat is how the lines of a vertex's input splits reach its
// program's stdin: Text (Hadoop's TextInputFormat with
// stream.map.input.ignoreKey: the line alone) or KeyValue
// (KeyValueTextInputFormat: the key up to the first KVSeparator byte, then
// Separator, then the rest; a line without it is all key).
type InputFormat struct {
	KeyValue bool
	// KVSeparator is the byte that ends a key in the input (TAB).
	KVSeparator byte
	// Separator goes between key and value on stdin (TAB).
	Separator []byte
}

// utf8BOM is skipped at the start of a file, as LineRecordReader does.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// FeedSplit copies the whole lines of one split, read from r (the split's
// lines as the worker cuts them), to w in the input format; atFileStart
// says the split starts at the file's first byte, where a UTF-8 byte order
// mark is dropped. It returns the lines written.
func (f InputFormat) FeedSplit(w *bufio.Writer, r io.Reader, atFileStart bool) (int64, error) {
	lr := NewLineReader(r)
	sep := f.Separator
	if len(sep) == 0 {
		sep = []byte{'\t'}
	}
	var n int64
	for {
		line, err := lr.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("reading input split: %w", err)
		}
		if n == 0 && atFileStart {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		n++
		if f.KeyValue {
			if i := bytes.IndexByte(line, f.KVSeparator); i >= 0 {
				_, _ = w.Write(line[:i])
				_, _ = w.Write(sep)
				_, _ = w.Write(line[i+1:])
			} else {
				_, _ = w.Write(line)
				_, _ = w.Write(sep)
			}
		} else {
			_, _ = w.Write(line)
		}
		if err := w.WriteByte('\n'); err != nil {
			return n, err
		}
	}
}
