package s3fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// resumes bounds how often a Reader reopens a stream that broke mid-read
// (the SDK's own retries cover a request that fails before its body).
const resumes = 5

// Reader reads an object from any offset with ranged GETs: a Seek moves
// the next GET's start, and a stream that breaks part-way is reopened
// where it broke, never silently short. Every GET names the ETag seen at
// Open, so an object replaced meanwhile is an error, not a mixture.
type Reader struct {
	st     *Store
	ctx    context.Context
	loc    Location
	size   int64
	etag   string
	pos    int64
	body   io.ReadCloser
	cancel context.CancelFunc
}

// Open stats loc and returns a Reader at offset 0.
func (st *Store) Open(ctx context.Context, loc Location) (*Reader, error) {
	size, etag, err := st.Head(ctx, loc)
	if err != nil {
		return nil, err
	}
	return &Reader{st: st, ctx: ctx, loc: loc, size: size, etag: etag}, nil
}

// Size is the object's size at Open.
func (r *Reader) Size() int64 { return r.size }

func (r *Reader) open() error {
	c, err := r.st.client(r.ctx, r.loc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.ctx, DataTimeout)
	in := &s3.GetObjectInput{Bucket: &r.loc.Bucket, Key: &r.loc.Key, Range: aws.String(fmt.Sprintf("bytes=%d-", r.pos))}
	if r.etag != "" {
		in.IfMatch = aws.String(r.etag)
	}
	out, err := c.GetObject(ctx, in)
	if err != nil {
		cancel()
		return wrap("read", r.loc, err)
	}
	r.body, r.cancel = out.Body, cancel
	return nil
}

func (r *Reader) drop() {
	if r.body != nil {
		_ = r.body.Close() // abandoning the stream; nothing to keep
		r.cancel()
		r.body = nil
	}
}

// Read reads from the current offset, reopening a broken stream.
func (r *Reader) Read(p []byte) (int, error) {
	if r.pos >= r.size {
		return 0, io.EOF
	}
	var last error
	for try := 0; try <= resumes; try++ {
		if r.body == nil {
			if err := r.open(); err != nil {
				return 0, err
			}
		}
		n, err := r.body.Read(p)
		r.pos += int64(n)
		if err == nil || (errors.Is(err, io.EOF) && r.pos >= r.size) {
			if errors.Is(err, io.EOF) {
				r.drop()
			}
			return n, err
		}
		r.drop()
		if n > 0 {
			return n, nil // the next Read reopens at the new offset
		}
		last = err
		select {
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		case <-time.After(time.Duration(try+1) * 100 * time.Millisecond):
		}
	}
	return 0, &Error{Op: "read", URI: r.loc.String(), Err: fmt.Errorf("the stream broke at byte %d of %d %d times: %w", r.pos, r.size, resumes+1, last)}
}

// Seek moves the offset; the next Read starts a GET there.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.size
	}
	if offset < 0 {
		return r.pos, fmt.Errorf("s3: seek %s to %d: before the start", r.loc, offset)
	}
	if offset != r.pos {
		r.drop()
		r.pos = offset
	}
	return r.pos, nil
}

// Close ends the stream.
func (r *Reader) Close() error {
	r.drop()
	return nil
}
