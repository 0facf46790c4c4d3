package task

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Writers are the attempt's output files: output/<consumer>/<partition>
// for every outgoing edge, or output/part for a sink.
type Writers struct {
	edges []edgeWriters
	sink  *fileWriter
}

type edgeWriters struct {
	out   Output
	parts []*fileWriter
}

type fileWriter struct {
	f *os.File
	w *bufio.Writer
}

// OpenWriters creates every output file, so consumers find one even when
// it stays empty.
func (c *Context) OpenWriters() (*Writers, error) {
	ws := &Writers{}
	open := func(path string) (*fileWriter, error) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		return &fileWriter{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
	}
	if c.IsSink() {
		fw, err := open(filepath.Join(c.OutputDir, SinkFile))
		if err != nil {
			return nil, fmt.Errorf("opening sink output: %w", err)
		}
		ws.sink = fw
		return ws, nil
	}
	for _, o := range c.Outputs {
		e := edgeWriters{out: o}
		for p := range o.Partitions {
			fw, err := open(filepath.Join(c.OutputDir, o.Consumer, strconv.Itoa(p)))
			if err != nil {
				_ = ws.Close()
				return nil, fmt.Errorf("opening output for %s partition %d: %w", o.Consumer, p, err)
			}
			e.parts = append(e.parts, fw)
		}
		ws.edges = append(ws.edges, e)
	}
	return ws, nil
}

// Emit writes line plus "\n" to one partition of every outgoing edge,
// chosen by partition(partitions), or to the sink.
func (ws *Writers) Emit(line []byte, partition func(partitions int) int) error {
	if ws.sink != nil {
		return ws.sink.writeLine(line)
	}
	for _, e := range ws.edges {
		p := partition(e.out.Partitions)
		if p < 0 || p >= len(e.parts) {
			return fmt.Errorf("partition %d out of range for %s (%d partitions)", p, e.out.Consumer, e.out.Partitions)
		}
		if err := e.parts[p].writeLine(line); err != nil {
			return err
		}
	}
	return nil
}

// EmitRecord writes rec as it is, with no line end (a fixed-length
// binary record), like Emit.
func (ws *Writers) EmitRecord(rec []byte, partition func(partitions int) int) error {
	if ws.sink != nil {
		return ws.sink.write(rec)
	}
	for _, e := range ws.edges {
		p := partition(e.out.Partitions)
		if p < 0 || p >= len(e.parts) {
			return fmt.Errorf("partition %d out of range for %s (%d partitions)", p, e.out.Consumer, e.out.Partitions)
		}
		if err := e.parts[p].write(rec); err != nil {
			return err
		}
	}
	return nil
}

func (fw *fileWriter) write(rec []byte) error {
	_, err := fw.w.Write(rec)
	return err
}

func (fw *fileWriter) writeLine(line []byte) error {
	if _, err := fw.w.Write(line); err != nil {
		return err
	}
	return fw.w.WriteByte('\n')
}

// Close flushes and closes every file, returning the first error: an
// output that failed to reach the disk must fail the task.
func (ws *Writers) Close() error {
	var errs []error
	closeOne := func(fw *fileWriter) {
		if fw == nil {
			return
		}
		if err := fw.w.Flush(); err != nil {
			errs = append(errs, err)
		}
		if err := fw.f.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	closeOne(ws.sink)
	for _, e := range ws.edges {
		for _, fw := range e.parts {
			closeOne(fw)
		}
	}
	return errors.Join(errs...)
}
