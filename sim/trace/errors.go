package trace

import (
	"errors"
	"fmt"
	"strings"
)

// ErrFormat is wrapped by every error about a trace's content, so callers
// can tell a bad trace from a missing file with errors.Is.
var ErrFormat = errors.New("bad trace")

// Error is a problem in a trace file, located as precisely as the format
// allows: the line (1-based; 0 when unknown), the field (a column name or a
// path into a JSON document), the value found, and what is allowed.
type Error struct {
	File  string
	Line  int
	Field string
	Value string
	Msg   string
	Err   error // the underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	if e.Value != "" {
		fmt.Fprintf(&b, ": %q", e.Value)
	}
	// Msg, when set, already says what Err means in the trace's terms.
	switch {
	case e.Msg != "":
		b.WriteString(": " + e.Msg)
	case e.Err != nil:
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both ErrFormat and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}

func fieldError(file string, line int, field, value, format string, args ...any) error {
	return &Error{File: file, Line: line, Field: field, Value: value, Msg: fmt.Sprintf(format, args...)}
}
