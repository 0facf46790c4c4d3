package hdfsfs

import (
	"context"
	"errors"
	"io"
	"time"
)

// OpenResuming opens a file with open under r and returns a reader that
// outlasts a NameNode (or DataNode) that stops answering while it reads:
// a read or seek that fails for that (Unavailable) closes the file, opens
// it again under r and goes on from the offset it had reached, so a
// split read across a NameNode restart is the same bytes as one read
// without it. colinmarc/hdfs asks the NameNode for a file's blocks on its
// first read, so a file opened before a restart and read during it fails
// there, not only at its open. what names the file in the errors and in
// told; ctx ends the waits.
func (r Retry) OpenResuming(ctx context.Context, what string, open func() (io.ReadSeekCloser, error), told func(err error, next time.Duration)) (io.ReadSeekCloser, error) {
	rr := &resumingReader{ctx: ctx, r: r, what: what, open: open, told: told}
	if err := r.Do(ctx, what, rr.openAt, told); err != nil {
		return nil, err
	}
	return rr, nil
}

type resumingReader struct {
	ctx  context.Context
	r    Retry
	what string
	open func() (io.ReadSeekCloser, error)
	told func(err error, next time.Duration)

	cur    io.ReadSeekCloser // nil after a failure, until opened again
	offset int64
}

// openAt opens the file at offset: one try.
func (rr *resumingReader) openAt() error {
	f, err := rr.open()
	if err != nil {
		return err
	}
	if rr.offset != 0 {
		if _, err := f.Seek(rr.offset, io.SeekStart); err != nil {
			_ = f.Close() // not usable
			return err
		}
	}
	rr.cur = f
	return nil
}

// drop closes a file that failed; the next try opens it again.
func (rr *resumingReader) drop() {
	_ = rr.cur.Close() // it failed already; its close says nothing more
	rr.cur = nil
}

// Read reads from the file, opening it again where it broke off; the
// tries since the last byte read are bounded by the policy.
func (rr *resumingReader) Read(p []byte) (int, error) {
	var n int
	var end error // the read's own outcome: nil, io.EOF or an answer
	try := func() error {
		if rr.cur == nil {
			if err := rr.openAt(); err != nil {
				return err
			}
		}
		var err error
		n, err = rr.cur.Read(p)
		rr.offset += int64(n)
		// io.EOF is the file's end here, not a dropped connection.
		if err != nil && !errors.Is(err, io.EOF) && Unavailable(err) {
			rr.drop()
			if n > 0 {
				return nil // hand over what came; the next read opens again
			}
			return err
		}
		end = err
		return nil
	}
	if err := rr.r.Do(rr.ctx, rr.what, try, rr.told); err != nil {
		return n, err
	}
	return n, end
}

func (rr *resumingReader) Seek(offset int64, whence int) (int64, error) {
	err := rr.r.Do(rr.ctx, rr.what, func() error {
		if rr.cur == nil {
			if err := rr.openAt(); err != nil {
				return err
			}
		}
		off, err := rr.cur.Seek(offset, whence)
		if err != nil {
			if Unavailable(err) {
				rr.drop()
			}
			return err
		}
		rr.offset = off
		return nil
	}, rr.told)
	return rr.offset, err
}

func (rr *resumingReader) Close() error {
	if rr.cur == nil {
		return nil
	}
	err := rr.cur.Close()
	rr.cur = nil
	return err
}
