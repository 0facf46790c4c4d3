package hdfsfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseRetry(t *testing.T) {
	r, err := ParseRetry(DefaultRetrySpec)
	// Hadoop's default: 6 × 10 s + 10 × 60 s = 660 s.
	if err != nil || r.Bound() != 660*time.Second {
		t.Fatalf("ParseRetry(%q) = bound %s, %v; want 11m0s", DefaultRetrySpec, r.Bound(), err)
	}
	for _, bad := range []string{"", "1000", "1000,0", "x,3", "0,3", "1000,3,5"} {
		if _, err := ParseRetry(bad); err == nil || !strings.Contains(err.Error(), RetrySpecKey) {
			t.Errorf("ParseRetry(%q) = %v, want an error naming %s", bad, err, RetrySpecKey)
		}
	}
}

// Do tries again only while the NameNode does not answer, and gives up
// after the policy's sleeps with an error naming HDFS and the bound.
func TestRetryDo(t *testing.T) {
	r, _ := ParseRetry("1,3")
	down := fmt.Errorf("connecting to namenode: %w", &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED})
	calls := 0
	err := r.Do(context.Background(), "committing", func() error { calls++; return down }, nil)
	var ue *UnavailableError
	if !errors.As(err, &ue) || calls != 4 || !strings.Contains(err.Error(), "HDFS unavailable") || !strings.Contains(err.Error(), RetrySpecKey) {
		t.Fatalf("Do = %v after %d calls, want an UnavailableError after 4", err, calls)
	}
	calls = 0
	err = r.Do(context.Background(), "committing", func() error {
		calls++
		if calls < 3 {
			return errors.New("no available namenodes: dial tcp: connection refused")
		}
		return nil
	}, nil)
	if err != nil || calls != 3 {
		t.Fatalf("Do = %v after %d calls, want nil after 3", err, calls)
	}
	answer := errors.New("open /x: file does not exist")
	calls = 0
	if err := r.Do(context.Background(), "committing", func() error { calls++; return answer }, nil); err != answer || calls != 1 {
		t.Fatalf("Do = %v after %d calls, want the answer at once", err, calls)
	}
}
