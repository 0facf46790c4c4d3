package task

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// countFile is an input of wc-reduce read as a run: "word\tcount" lines in
// word order, as wc-map writes its partitions. Order is checked as the
// file is read; a line out of order ends the merge with an
// unsortedInputError.
type countFile struct {
	path  string
	meter *progressMeter
}

func (f countFile) open() (recordSource, error) {
	file, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	return &countFileSource{countFile: f, file: file, lr: newLineReader(file)}, nil
}

// unsortedInputError names the first line of an input that comes before
// the line above it.
type unsortedInputError struct {
	File string
	Line int
}

func (e *unsortedInputError) Error() string {
	return fmt.Sprintf("%s:%d: word out of order (wc-map writes its partitions sorted by word)", e.File, e.Line)
}

type countFileSource struct {
	countFile
	file    *os.File
	lr      *lineReader
	lineNo  int
	read    int64 // bytes already counted by the meter
	started bool
	// last is the key returned last, kept to check the order; spare is
	// the buffer the next key is copied to.
	last, spare []byte
}

func (s *countFileSource) next() ([]byte, int64, error) {
	for {
		line, err := s.lr.next()
		s.meter.add(s.lr.n - s.read)
		s.read = s.lr.n
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, fmt.Errorf("reading %s: %w", s.path, err)
		}
		s.lineNo++
		if len(line) == 0 {
			continue
		}
		word, n, err := parseCount(s.path, s.lineNo, line)
		if err != nil {
			return nil, 0, err
		}
		if s.started && bytes.Compare(word, s.last) < 0 {
			return nil, 0, &unsortedInputError{File: s.path, Line: s.lineNo}
		}
		s.spare = append(s.spare[:0], word...)
		s.last, s.spare = s.spare, s.last
		s.started = true
		return s.last, n, nil
	}
}

func (s *countFileSource) close() error { return s.file.Close() }
