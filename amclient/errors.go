package amclient

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is a call the AM refused or did not answer. Its text is the AM's
// own message (what the user reads); Unavailable says what to do next.
type Error struct {
	// Op is the call: submit, status, list, cluster, kill, autoscale.
	Op string
	// Unavailable: the AM did not answer (it went away, or is not up
	// yet); a client that follows the application looks for the next
	// attempt. Otherwise the AM answered, and asking again will not help.
	Unavailable bool
	Msg         string
	Err         error // the RPC's error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	s, ok := status.FromError(err)
	if !ok {
		return &Error{Op: op, Msg: err.Error(), Err: err}
	}
	return &Error{Op: op, Unavailable: s.Code() == codes.Unavailable, Msg: s.Message(), Err: err}
}

// IsUnavailable says whether err is a call no AM answered.
func IsUnavailable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Unavailable
}

// GoneError: the AM went away and no other attempt took over (the
// application ended, or the caller's context did first).
type GoneError struct {
	Err    error // the call that found the AM gone
	Locate error // why no attempt was found
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("the AM went away (%v) and no attempt took over: %v", e.Err, e.Locate)
}

func (e *GoneError) Unwrap() []error { return []error{e.Err, e.Locate} }
