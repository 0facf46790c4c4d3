package main

import (
	"fmt"
	"io"
)

// printer writes a command's output and keeps the first write error, so a
// command prints freely and still fails, once, at its end, when its
// output could not be written (a full disk, a closed pipe).
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

func (p *printer) println(a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, a...)
	}
}

func (p *printer) print(a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprint(p.w, a...)
	}
}

// done is the command's result: its own error, else the first failed
// write.
func (p *printer) done(err error) error {
	if err != nil {
		return err
	}
	return p.err
}
