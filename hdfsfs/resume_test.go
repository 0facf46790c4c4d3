package hdfsfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// breaking is a file that breaks (connection reset) once its reader has
// handed out failAfter bytes from where it was opened.
type breaking struct {
	*bytes.Reader
	read, failAfter int
}

func (b *breaking) Read(p []byte) (int, error) {
	if b.read >= b.failAfter {
		return 0, &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}
	}
	p = p[:min(len(p), b.failAfter-b.read)]
	n, err := b.Reader.Read(p)
	b.read += n
	return n, err
}

func (b *breaking) Close() error { return nil }

// A read that breaks mid-file, and whose next opens meet a NameNode
// still away, goes on at the byte where it broke: the bytes read are the
// file's, once each.
func TestOpenResumingGoesOnWhereItBroke(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100))
	r, _ := ParseRetry("1,5")
	opens, refused := 0, 0
	open := func() (io.ReadSeekCloser, error) {
		opens++
		if opens == 2 || opens == 3 { // the NameNode is away for two tries
			refused++
			return nil, fmt.Errorf("no available namenodes: %w", &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED})
		}
		return &breaking{Reader: bytes.NewReader(data), failAfter: 137}, nil
	}
	var told []string
	rr, err := r.OpenResuming(context.Background(), "reading f", open, func(err error, next time.Duration) { told = append(told, err.Error()) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rr.Seek(100, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rr)
	if err != nil {
		t.Fatalf("ReadAll: %v after %d bytes", err, len(got))
	}
	if !bytes.Equal(got, data[100:]) {
		t.Fatalf("read %d bytes, not the file's from offset 100 (%d bytes)", len(got), len(data)-100)
	}
	if refused != 2 || opens < 4 || len(told) == 0 {
		t.Errorf("opens %d (refused %d), retries told %d: want the breaks waited out", opens, refused, len(told))
	}
}

// A file that keeps failing fails its read past the policy's bound, with
// the line naming HDFS and the bound; an answer (not found) and the end
// of the file are not retried.
func TestOpenResumingGivesUpAtTheBound(t *testing.T) {
	r, _ := ParseRetry("1,3")
	opens := 0
	rr, err := r.OpenResuming(context.Background(), "reading f", func() (io.ReadSeekCloser, error) {
		opens++
		return &breaking{Reader: bytes.NewReader([]byte("abc")), failAfter: 0}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rr.Read(make([]byte, 8))
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "HDFS unavailable: reading f") || !strings.Contains(err.Error(), RetrySpecKey) {
		t.Fatalf("Read = %v, want an UnavailableError naming the read and the bound", err)
	}
	if opens != 4 {
		t.Errorf("%d opens, want 4 (the first and 3 retries)", opens)
	}
	opens = 0
	_, err = r.OpenResuming(context.Background(), "reading g", func() (io.ReadSeekCloser, error) {
		opens++
		return nil, &os.PathError{Op: "open", Path: "g", Err: os.ErrNotExist}
	}, nil)
	if !errors.Is(err, os.ErrNotExist) || opens != 1 {
		t.Errorf("open of a missing file = %v after %d tries, want not found at once", err, opens)
	}
	rr, _ = r.OpenResuming(context.Background(), "reading h", func() (io.ReadSeekCloser, error) {
		return &breaking{Reader: bytes.NewReader([]byte("abc")), failAfter: 3}, nil
	}, nil)
	if b, err := io.ReadAll(rr); err != nil || string(b) != "abc" {
		t.Errorf("ReadAll = %q, %v; want abc and its end", b, err)
	}
}

// A retry around a call that already waited out the bound does not wait
// it out again.
func TestUnavailableErrorIsNotRetriedAgain(t *testing.T) {
	inner := &UnavailableError{What: "x", Spec: "1,1", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	if Unavailable(fmt.Errorf("committing: %w", inner)) {
		t.Errorf("Unavailable(an UnavailableError) = true, want false")
	}
}
