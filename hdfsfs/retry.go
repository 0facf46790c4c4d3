package hdfsfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Outlasting a NameNode restart: colinmarc/hdfs fails a call at once when
// its NameNode does not answer (refused, reset, "no available
// namenodes"), and a NameNode that has just started answers from safe
// mode. A call that must not fail for that (a sink attempt's commit) is
// made through Retry, Hadoop's DFSClient retry policy: a list of
// (sleep, count) pairs from dfs.client.retry.policy.spec, Hadoop's default
// "10000,6,60000,10" (six tries 10 s apart, then ten 60 s apart: eleven
// minutes in all). When the NameNode stays away past the last sleep the
// call fails with an UnavailableError naming HDFS and the bound.
//
// Retry is the one rule; it is applied where the calls are made: an FS
// given one (SetRetry) makes each of its calls through it (the AM's
// recovery log, history, input listing and promotions; `ebb streaming`'s
// listing), a worker's sink commits go through Do, and a worker's split
// reads through OpenResuming.

// RetrySpecKey is Hadoop's key for the policy; DefaultRetrySpec its
// default.
const (
	RetrySpecKey     = "dfs.client.retry.policy.spec"
	DefaultRetrySpec = "10000,6,60000,10"
)

// RetryFrom reads the policy from a configuration's raw lookup (its
// *-site.xml and --set): Hadoop's default when the key is unset or empty,
// an error naming the key when it is bad.
func RetryFrom(raw func(key string) (string, bool)) (Retry, error) {
	v, ok := raw(RetrySpecKey)
	if !ok || strings.TrimSpace(v) == "" {
		v = DefaultRetrySpec
	}
	return ParseRetry(strings.TrimSpace(v))
}

// Retry is a parsed dfs.client.retry.policy.spec.
type Retry struct {
	Spec   string
	sleeps []time.Duration
}

// ParseRetry reads a policy spec: pairs of milliseconds to sleep and how
// many times, each at least 1. A bad spec is an error naming the key.
func ParseRetry(spec string) (Retry, error) {
	bad := func(why string) (Retry, error) {
		return Retry{}, fmt.Errorf("%s = %q: %s; want pairs of milliseconds and counts, e.g. %q", RetrySpecKey, spec, why, DefaultRetrySpec)
	}
	fields := strings.Split(strings.TrimSpace(spec), ",")
	if len(fields)%2 != 0 || len(fields) == 0 {
		return bad("an odd number of fields")
	}
	r := Retry{Spec: spec}
	for i := 0; i < len(fields); i += 2 {
		ms, err1 := strconv.ParseInt(strings.TrimSpace(fields[i]), 10, 64)
		n, err2 := strconv.Atoi(strings.TrimSpace(fields[i+1]))
		if err1 != nil || err2 != nil || ms < 1 || n < 1 || n > 10000 {
			return bad(fmt.Sprintf("pair %d is not milliseconds >= 1 and a count from 1 to 10000", i/2+1))
		}
		for range n {
			r.sleeps = append(r.sleeps, time.Duration(ms)*time.Millisecond)
		}
	}
	return r, nil
}

// Bound is how long Do may wait in all.
func (r Retry) Bound() time.Duration {
	var b time.Duration
	for _, s := range r.sleeps {
		b += s
	}
	return b
}

// UnavailableError: HDFS did not answer within the retry policy's bound.
type UnavailableError struct {
	What   string
	Spec   string
	Waited time.Duration
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("HDFS unavailable: %s failed for %s, past the bound %s=%q: %v",
		e.What, e.Waited.Round(time.Millisecond), RetrySpecKey, e.Spec, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Unavailable says whether err is the NameNode not answering (or in safe
// mode after a start) rather than an answer: such a call may be tried
// again.
func Unavailable(err error) bool {
	var ue *UnavailableError
	if err == nil || errors.As(err, &ue) {
		// A call that already waited out the bound is not waited for
		// again by a retry around it.
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &ne):
		return true
	}
	s := err.Error()
	for _, m := range []string{"no available namenodes", "connecting to namenode", "SafeModeException", "RetriableException",
		"connection refused", "connection reset", "broken pipe"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// Do calls f until it succeeds, fails with an answer (not Unavailable),
// ctx ends, or the policy's sleeps are spent (an UnavailableError).
// onRetry, when set, hears of each failure that will be tried again.
func (r Retry) Do(ctx context.Context, what string, f func() error, onRetry func(err error, next time.Duration)) error {
	start := time.Now()
	for i := 0; ; i++ {
		err := f()
		if !Unavailable(err) {
			return err
		}
		if i >= len(r.sleeps) {
			return &UnavailableError{What: what, Spec: r.Spec, Waited: time.Since(start), Err: err}
		}
		if onRetry != nil {
			onRetry(err, r.sleeps[i])
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (while HDFS was unavailable: %v)", what, context.Cause(ctx), err)
		case <-time.After(r.sleeps[i]):
		}
	}
}
