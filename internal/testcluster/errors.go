package testcluster

import (
	"errors"
	"fmt"
)

// ErrNoProperty means a site file does not set the key asked for.
var ErrNoProperty = errors.New("property not set")

// ParseError says which file and line could not be read and why.
type ParseError struct {
	File string
	Line int // 0 when the position is unknown (XML errors)
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}
