package s3fs

import (
	"bytes"
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ebb-am/ebb/commit"
)

// PartSize is the size of each part of a multipart upload but the last:
// what a Writer holds in memory. S3 wants at least 5 MiB.
const PartSize = 8 << 20

// Writer streams a file into a multipart upload, one part at a time, and
// leaves the upload pending when closed: the job commit completes it
// (commit.Upload), or aborts it.
type Writer struct {
	st    *Store
	ctx   context.Context
	loc   Location
	id    string
	buf   []byte
	parts []commit.Part
	size  int64
	err   error
}

// Begin starts a multipart upload to loc.
func (st *Store) Begin(ctx context.Context, loc Location) (*Writer, error) {
	out, err := call(ctx, st, loc, "begin an upload to", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.CreateMultipartUploadOutput, error) {
		return c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &loc.Bucket, Key: &loc.Key})
	})
	if err != nil {
		return nil, err
	}
	return &Writer{st: st, ctx: ctx, loc: loc, id: aws.ToString(out.UploadId), buf: make([]byte, 0, PartSize)}, nil
}

// Write buffers p and uploads each part as it fills.
func (w *Writer) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if w.err != nil {
			return n, w.err
		}
		k := min(len(p), PartSize-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(w.buf) == PartSize {
			w.flush()
		}
	}
	return n, w.err
}

func (w *Writer) flush() {
	num := int32(len(w.parts) + 1)
	body := w.buf
	out, err := call(w.ctx, w.st, w.loc, fmt.Sprintf("upload part %d of", num), DataTimeout, func(ctx context.Context, c *s3.Client) (*s3.UploadPartOutput, error) {
		return c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &w.loc.Bucket, Key: &w.loc.Key, UploadId: &w.id,
			PartNumber: aws.Int32(num), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))})
	})
	if err != nil {
		w.err = err
		return
	}
	w.parts = append(w.parts, commit.Part{Number: num, ETag: aws.ToString(out.ETag)})
	w.size += int64(len(body))
	w.buf = w.buf[:0]
}

// Close uploads the last part (an empty file is one empty part) and leaves
// the upload pending.
func (w *Writer) Close() error {
	if w.err == nil && (len(w.buf) > 0 || len(w.parts) == 0) {
		w.flush()
	}
	w.buf = nil
	return w.err
}

// Upload is what completing the upload needs, for a task manifest; its
// Path is the key as an absolute path.
func (w *Writer) Upload() commit.Upload {
	return commit.Upload{Path: w.loc.Path(), UploadID: w.id, Parts: w.parts, Size: w.size}
}

// Abort drops the upload and its parts.
func (w *Writer) Abort(ctx context.Context) error { return w.st.Abort(ctx, w.loc, w.id) }

func completedParts(ps []commit.Part) []types.CompletedPart {
	out := make([]types.CompletedPart, len(ps))
	for i, p := range ps {
		out[i] = types.CompletedPart{PartNumber: aws.Int32(p.Number), ETag: aws.String(p.ETag)}
	}
	return out
}
