package worker

import (
	"errors"
	"fmt"
)

// ConfigError reports an Options field that is missing or invalid; the
// caller should fix its configuration, retrying will not help.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("worker option %s %s", e.Field, e.Reason)
}

// ErrStreamBroken is wrapped by Run's error when the stream to the AM ended
// without the AM asking the worker to stop: the worker has killed its
// attempts and its container should end so the AM sees it as lost.
var ErrStreamBroken = errors.New("stream to the AM broke")

// RegisterError reports that the AM did not accept the worker (wrong
// secret, unknown worker, or no Registered answer in time).
type RegisterError struct {
	Err error
}

func (e *RegisterError) Error() string { return fmt.Sprintf("registering with the AM: %v", e.Err) }
func (e *RegisterError) Unwrap() error { return e.Err }

// FetchError reports that an upstream output could not be fetched; the
// producer attempt named here has to be re-run.
type FetchError struct {
	ProducerAttempt string
	URL             string
	Err             error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("fetching output of %s from %s: %v", e.ProducerAttempt, e.URL, e.Err)
}
func (e *FetchError) Unwrap() error { return e.Err }
