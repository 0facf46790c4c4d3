package s3fs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"

	"github.com/aws/smithy-go"
)

// Error is a failed S3 call: what was asked of which URI, why, and what to
// do. Its text is one line and holds no secret (the SDK's errors name the
// access key id at most, never the secret key).
type Error struct {
	Op   string // "list", "read", "upload", ...
	URI  string
	Code string // S3's error code, when the server gave one
	Err  error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("s3: %s %s: %s", e.Op, e.URI, oneLine(e.Err))
	if h := hint(e.Code, e.Err); h != "" {
		msg += ": " + h
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes a missing key or bucket match fs.ErrNotExist.
func (e *Error) Is(target error) bool {
	return target == fs.ErrNotExist && (e.Code == "NoSuchKey" || e.Code == "NotFound" || e.Code == "NoSuchUpload")
}

func wrap(op string, loc Location, err error) error {
	e := &Error{Op: op, URI: loc.String(), Err: err}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		e.Code = ae.ErrorCode()
		e.Err = fmt.Errorf("%s: %s", ae.ErrorCode(), ae.ErrorMessage())
	}
	return e
}

func hint(code string, err error) string {
	var ne net.Error
	var oe *net.OpError
	switch {
	case code == "NoSuchBucket":
		return "the bucket does not exist: create it, or fix the URI"
	case code == "AccessDenied" || code == "Forbidden" || code == "AllAccessDisabled":
		return "access denied: grant these credentials access to the bucket, or use others (fs.s3a.access.key/fs.s3a.secret.key or the AWS credential chain)"
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "ExpiredToken" || code == "InvalidToken":
		return "the server refused the credentials: check fs.s3a.access.key, fs.s3a.secret.key and fs.s3a.session.token, or the AWS credential chain"
	case code == "NotImplemented" || code == "MethodNotAllowed":
		return "the object store does not serve this call (ebb's S3 output needs multipart uploads and ListMultipartUploads): write the output to an hdfs:// or local path"
	case strings.Contains(err.Error(), "failed to retrieve credentials") || strings.Contains(err.Error(), "no EC2 IMDS role found"):
		return "no credentials found: set fs.s3a.access.key and fs.s3a.secret.key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time: check fs.s3a.endpoint and the network"
	case errors.As(err, &oe) || errors.As(err, &ne):
		return "cannot reach the endpoint: check fs.s3a.endpoint (and fs.s3a.path.style.access for an S3-compatible server)"
	}
	return ""
}

// oneLine keeps the first line of an error's text.
func oneLine(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}
