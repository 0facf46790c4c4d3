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
// call fails with an UnavailableError naming HDFS, the NameNode and the
// bound.
//
// Retry is the one rule; it is applied where the calls are made: an FS
// given one (SetRetry) makes each of its calls through it (the AM's
// recovery log, history, input listing and promotions; `ebb streaming`'s
// listing), a worker's sink commits go through Do, and a worker's split
// reads through OpenResuming.
//
// Two processes, two policies. The AM and its workers must outlast a
// NameNode restart (the DAGs they hold would fail otherwise), so they
// wait under the spec whatever dfs.client.retry.policy.enabled says
// (RetryFrom). A gateway command (`ebb submit`, `ebb dag submit`, `ebb
// streaming`'s client side, `ebb kill`, listing) is a client of HDFS as
// Hadoop's `hdfs dfs` is, and waits as Hadoop's DFSClient does
// (ClientRetryFrom): with dfs.client.retry.policy.enabled=false, Hadoop's
// default, the NameNode's ClientProtocol proxy gets TRY_ONCE_THEN_FAIL as
// its connection retry policy (RetryUtils.getDefaultRetryPolicy), so a
// NameNode that refuses fails the call at the first try and
// ipc.client.connect.max.retries does not apply to it; with true, the
// spec's sleeps. Apart from the policy, Hadoop's IPC client connects
// again at once after a connect that timed out (ipc.client.connect.timeout,
// 20 s), up to ipc.client.connect.max.retries.on.timeouts times (45): a
// NameNode host that drops packets holds `hdfs dfs -ls` about 15 minutes.

// RetrySpecKey is Hadoop's key for the policy; DefaultRetrySpec its
// default. RetryEnabledKey switches the policy on for a gateway (Hadoop's
// default false); ConnectTimeoutRetriesKey counts the connects that may
// time out, DefaultConnectTimeoutRetries its Hadoop default.
const (
	RetrySpecKey                 = "dfs.client.retry.policy.spec"
	DefaultRetrySpec             = "10000,6,60000,10"
	RetryEnabledKey              = "dfs.client.retry.policy.enabled"
	ConnectTimeoutRetriesKey     = "ipc.client.connect.max.retries.on.timeouts"
	DefaultConnectTimeoutRetries = 45
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

// Retry is a parsed dfs.client.retry.policy.spec, and for a gateway
// (ClientRetryFrom) the rest of Hadoop's client policy.
type Retry struct {
	Spec   string
	sleeps []time.Duration
	// once: dfs.client.retry.policy.enabled=false, a gateway's default:
	// no sleeps, the first refusal fails the call.
	once bool
	// timeoutRetries is how many connects that time out are tried again
	// at once before the policy counts one (a gateway's
	// ipc.client.connect.max.retries.on.timeouts; 0 for the AM, whose
	// sleeps count every failure alike).
	timeoutRetries int
	clock          clock // nil: the real one
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

// ClientRetryFrom reads a gateway command's policy from its
// configuration's raw lookup as Hadoop's DFSClient reads it:
// dfs.client.retry.policy.enabled (false when unset: one try),
// dfs.client.retry.policy.spec (checked even when off, as the AM reads
// it), ipc.client.connect.max.retries.on.timeouts (45 when unset). A bad
// value is an error naming the key.
func ClientRetryFrom(raw func(key string) (string, bool)) (Retry, error) {
	r, err := RetryFrom(raw)
	if err != nil {
		return Retry{}, err
	}
	r.once = true
	if v, ok := raw(RetryEnabledKey); ok && strings.TrimSpace(v) != "" {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			r.once = false
		case "false":
		default:
			return Retry{}, fmt.Errorf("%s = %q: want true or false (Hadoop's default false)", RetryEnabledKey, v)
		}
	}
	if r.once {
		r.sleeps = nil
	}
	r.timeoutRetries = DefaultConnectTimeoutRetries
	if v, ok := raw(ConnectTimeoutRetriesKey); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 10000 {
			return Retry{}, fmt.Errorf("%s = %q: want a count from 0 to 10000 (Hadoop's default %d)", ConnectTimeoutRetriesKey, v, DefaultConnectTimeoutRetries)
		}
		r.timeoutRetries = n
	}
	return r, nil
}

// Bound is how long Do may sleep in all (connects that time out come on
// top: each takes its ipc.client.connect.timeout).
func (r Retry) Bound() time.Duration {
	var b time.Duration
	for _, s := range r.sleeps {
		b += s
	}
	return b
}

// bound says in an error what ended the waiting: the key and its value,
// and the connects that timed out when any was tried again.
func (r Retry) bound(timeouts int) string {
	b := fmt.Sprintf("%s=%q (%s)", RetrySpecKey, r.Spec, r.Bound())
	if r.once {
		b = RetryEnabledKey + "=false (one try, Hadoop's default)"
	}
	if timeouts > 0 {
		b += fmt.Sprintf(" and %s=%d", ConnectTimeoutRetriesKey, r.timeoutRetries)
	}
	return b
}

// UnavailableError: HDFS did not answer within the retry policy's bound.
type UnavailableError struct {
	What     string
	NameNode string // host:port, when the caller knows it
	Spec     string
	Bound    string // the key and value that ended the waiting
	Waited   time.Duration
	Err      error
}

func (e *UnavailableError) Error() string {
	nn := ""
	if e.NameNode != "" {
		nn = " (NameNode " + e.NameNode + ")"
	}
	return fmt.Sprintf("HDFS unavailable: %s%s failed for %s, past the bound %s: %v",
		e.What, nn, e.Waited.Round(time.Millisecond), e.Bound, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// atNameNode names the NameNode in err when it is an UnavailableError
// that does not yet.
func atNameNode(err error, namenode string) error {
	var ue *UnavailableError
	if errors.As(err, &ue) && ue.NameNode == "" {
		ue.NameNode = namenode
	}
	return err
}

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
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &ne), connectTimedOut(err):
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
// ctx ends, or the policy's tries are spent (an UnavailableError).
// onRetry, when set, hears of each failure that will be tried again.
func (r Retry) Do(ctx context.Context, what string, f func() error, onRetry func(err error, next time.Duration)) error {
	clk := r.clockOrReal()
	start := clk.Now()
	timeouts := 0
	for i := 0; ; {
		err := f()
		if !Unavailable(err) {
			return err
		}
		var next time.Duration
		switch {
		case timeouts < r.timeoutRetries && connectTimedOut(err):
			timeouts++ // Hadoop's IPC client connects again at once: the timeout was the wait
		case i < len(r.sleeps):
			next = r.sleeps[i]
			i++
		default:
			return &UnavailableError{What: what, Spec: r.Spec, Bound: r.bound(timeouts), Waited: clk.Now().Sub(start), Err: err}
		}
		if onRetry != nil {
			onRetry(err, next)
		}
		if cerr := clk.Sleep(ctx, next); cerr != nil {
			return fmt.Errorf("%s: %w (while HDFS was unavailable: %v)", what, cerr, err)
		}
	}
}

// Dial connects to defaultFS's NameNode under r, dial making each try,
// and gives the FS r for its calls (SetRetry); told (may be nil) hears of
// each retry. It is how a gateway command reaches HDFS.
func (r Retry) Dial(ctx context.Context, defaultFS string, dial func(ctx context.Context) (*FS, error), told func(what string, err error, next time.Duration)) (*FS, error) {
	what := "connecting to " + defaultFS
	var fs *FS
	err := r.Do(ctx, what, func() (err error) { fs, err = dial(ctx); return err }, func(err error, next time.Duration) {
		if told != nil {
			told(what, err, next)
		}
	})
	if err != nil {
		nn, _ := namenodeOf(defaultFS)
		return nil, atNameNode(err, nn)
	}
	fs.SetRetry(r, told)
	return fs, nil
}

// RetryNote is the line that tells of a retry (a gateway's stderr, the
// AM's log): what failed, why, when the next try comes and the key that
// allows it (a connect that timed out is tried again at once, under
// ipc.client.connect.max.retries.on.timeouts).
func RetryNote(what string, err error, next time.Duration) string {
	key := RetrySpecKey
	if next == 0 {
		key = ConnectTimeoutRetriesKey
	}
	return fmt.Sprintf("%s: HDFS does not answer (%v); trying again in %s (%s)", what, err, next, key)
}

// clock is what Do waits with; a test gives a fake one, so that a bound of
// minutes is checked at once.
type clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (its cause).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

func (r Retry) clockOrReal() clock {
	if r.clock == nil {
		return realClock{}
	}
	return r.clock
}
