package shuffle

import (
	"bufio"
	"bytes"
	"io"
)

// LineReader reads lines as Hadoop's LineReader does with its default
// delimiters: LF, CR or CRLF ends a line and is not part of it, and a last
// line without an ending is still a line. A lone CR therefore splits a
// record in two, as on Hadoop.
type LineReader struct {
	br   *bufio.Reader
	line []byte
	// Consumed counts the bytes read so far, endings included (a line's
	// offset in its file, for TextInputFormat's keys).
	Consumed int64
}

// NewLineReader reads lines from r through a 64 KiB buffer.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next line without its ending, valid until the next
// call, or io.EOF after the last one.
func (l *LineReader) Next() ([]byte, error) {
	l.line = l.line[:0]
	start := l.Consumed
	for {
		if l.br.Buffered() == 0 {
			if _, err := l.br.Peek(1); err != nil {
				if err == io.EOF && l.Consumed > start {
					return l.line, nil // a last line without an ending
				}
				return nil, err
			}
		}
		buf, _ := l.br.Peek(l.br.Buffered())
		end := bytes.IndexByte(buf, '\n')
		if end < 0 {
			end = len(buf)
		}
		if cr := bytes.IndexByte(buf[:end], '\r'); cr >= 0 {
			end = cr
		}
		l.line = append(l.line, buf[:end]...)
		if end == len(buf) {
			l.discard(end)
			continue
		}
		ending := buf[end]
		l.discard(end + 1)
		if ending == '\r' {
			// CRLF is one ending, even when the LF is in the next read.
			if next, err := l.br.Peek(1); err == nil && next[0] == '\n' {
				l.discard(1)
			}
		}
		return l.line, nil
	}
}

func (l *LineReader) discard(n int) {
	_, _ = l.br.Discard(n) // n bytes are buffered: Discard cannot fail
	l.Consumed += int64(n)
}
