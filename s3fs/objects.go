package s3fs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Object is one object's key (as a location) and size.
type Object struct {
	Loc  Location
	Size int64
}

// Head stats an object; a missing one is an error matching fs.ErrNotExist.
func (st *Store) Head(ctx context.Context, loc Location) (size int64, etag string, err error) {
	out, err := call(ctx, st, loc, "stat", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.HeadObjectOutput, error) {
		return c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &loc.Bucket, Key: &loc.Key})
	})
	if err != nil {
		return 0, "", err
	}
	return aws.ToInt64(out.ContentLength), aws.ToString(out.ETag), nil
}

// Walk lists every object whose key starts with prefix, in key order.
func (st *Store) Walk(ctx context.Context, prefix Location) ([]Object, error) {
	var out []Object
	var token *string
	for {
		page, err := call(ctx, st, prefix, "list", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.ListObjectsV2Output, error) {
			return c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &prefix.Bucket, Prefix: &prefix.Key, ContinuationToken: token})
		})
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			out = append(out, Object{Loc: Location{Scheme: prefix.Scheme, Bucket: prefix.Bucket, Key: aws.ToString(o.Key)}, Size: aws.ToInt64(o.Size)})
		}
		if !aws.ToBool(page.IsTruncated) || page.NextContinuationToken == nil {
			return out, nil
		}
		token = page.NextContinuationToken
	}
}

// Dir lists the names directly under the directory dir: files, and the
// directories their keys imply (dirs).
func (st *Store) Dir(ctx context.Context, dir Location) (files []Object, dirs []string, err error) {
	prefix := dir.Key + "/"
	if dir.Key == "" {
		prefix = ""
	}
	var token *string
	for {
		page, err := call(ctx, st, dir, "list", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.ListObjectsV2Output, error) {
			return c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &dir.Bucket, Prefix: &prefix, Delimiter: aws.String("/"), ContinuationToken: token})
		})
		if err != nil {
			return nil, nil, err
		}
		for _, o := range page.Contents {
			if k := aws.ToString(o.Key); k != prefix {
				files = append(files, Object{Loc: Location{Scheme: dir.Scheme, Bucket: dir.Bucket, Key: k}, Size: aws.ToInt64(o.Size)})
			}
		}
		for _, p := range page.CommonPrefixes {
			dirs = append(dirs, strings.TrimSuffix(strings.TrimPrefix(aws.ToString(p.Prefix), prefix), "/"))
		}
		if !aws.ToBool(page.IsTruncated) || page.NextContinuationToken == nil {
			return files, dirs, nil
		}
		token = page.NextContinuationToken
	}
}

// Put writes a small object whole.
func (st *Store) Put(ctx context.Context, loc Location, data []byte) error {
	_, err := call(ctx, st, loc, "write", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.PutObjectOutput, error) {
		return c.PutObject(ctx, &s3.PutObjectInput{Bucket: &loc.Bucket, Key: &loc.Key, Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data)))})
	})
	return err
}

// Get reads a small object whole.
func (st *Store) Get(ctx context.Context, loc Location) ([]byte, error) {
	return call(ctx, st, loc, "read", DataTimeout, func(ctx context.Context, c *s3.Client) ([]byte, error) {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &loc.Bucket, Key: &loc.Key})
		if err != nil {
			return nil, err
		}
		defer func() { _ = out.Body.Close() }() // read whole: a failed close loses nothing
		return io.ReadAll(out.Body)
	})
}

// Delete removes an object; a missing one is fine.
func (st *Store) Delete(ctx context.Context, loc Location) error {
	_, err := call(ctx, st, loc, "delete", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.DeleteObjectOutput, error) {
		return c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &loc.Bucket, Key: &loc.Key})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Uploads lists the multipart uploads pending under prefix.
func (st *Store) Uploads(ctx context.Context, prefix Location) ([]PendingUpload, error) {
	var out []PendingUpload
	var keyMarker, idMarker *string
	for {
		page, err := call(ctx, st, prefix, "list the pending uploads of", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.ListMultipartUploadsOutput, error) {
			return c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &prefix.Bucket, Prefix: &prefix.Key, KeyMarker: keyMarker, UploadIdMarker: idMarker})
		})
		if err != nil {
			return nil, err
		}
		for _, u := range page.Uploads {
			out = append(out, PendingUpload{Loc: Location{Scheme: prefix.Scheme, Bucket: prefix.Bucket, Key: aws.ToString(u.Key)}, UploadID: aws.ToString(u.UploadId)})
		}
		if !aws.ToBool(page.IsTruncated) {
			return out, nil
		}
		keyMarker, idMarker = page.NextKeyMarker, page.NextUploadIdMarker
	}
}

// PendingUpload is a multipart upload begun and not yet completed.
type PendingUpload struct {
	Loc      Location
	UploadID string
}

// Complete completes a multipart upload from its parts.
func (st *Store) Complete(ctx context.Context, loc Location, uploadID string, parts []types.CompletedPart) error {
	_, err := call(ctx, st, loc, "complete the upload of", DataTimeout, func(ctx context.Context, c *s3.Client) (*s3.CompleteMultipartUploadOutput, error) {
		return c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &loc.Bucket, Key: &loc.Key, UploadId: &uploadID,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	})
	return err
}

// Abort aborts a multipart upload; one already gone is fine.
func (st *Store) Abort(ctx context.Context, loc Location, uploadID string) error {
	_, err := call(ctx, st, loc, "abort the upload of", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.AbortMultipartUploadOutput, error) {
		return c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &loc.Bucket, Key: &loc.Key, UploadId: &uploadID})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// CreateBucket makes a bucket (tests, and the benchmark, on their own
// server); one that exists and is ours is fine.
func (st *Store) CreateBucket(ctx context.Context, bucket string) error {
	loc := Location{Scheme: "s3", Bucket: bucket}
	_, err := call(ctx, st, loc, "create the bucket", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.CreateBucketOutput, error) {
		return c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
	})
	var e *Error
	if errors.As(err, &e) && (e.Code == "BucketAlreadyOwnedByYou" || e.Code == "BucketAlreadyExists") {
		return nil
	}
	return err
}

// CheckReadable asks for one key under the directory of loc's last
// element (an object, a prefix or a glob), so that a missing bucket, a
// refusal or a wrong endpoint shows before a DAG reading loc starts. It
// says nothing about whether loc matches anything: that is the AM's
// listing's business.
func (st *Store) CheckReadable(ctx context.Context, loc Location) error {
	prefix := ""
	if i := strings.LastIndex(loc.Key, "/"); i >= 0 {
		prefix = loc.Key[:i+1]
	}
	_, err := call(ctx, st, loc, "read", CallTimeout, func(ctx context.Context, c *s3.Client) (*s3.ListObjectsV2Output, error) {
		return c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &loc.Bucket, Prefix: &prefix, MaxKeys: aws.Int32(1)})
	})
	return err
}
