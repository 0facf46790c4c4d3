package s3fs

import (
	"fmt"
	"strings"
)

// Location is an s3:// or s3a:// URI, split. Scheme is kept as written so
// that what ebb prints and lists back reads as the user wrote it.
type Location struct {
	Scheme string // "s3" or "s3a"
	Bucket string
	Key    string // no leading slash; "" is the bucket's root
}

// IsS3 says whether location is an s3:// or s3a:// URI.
func IsS3(location string) bool {
	return strings.HasPrefix(location, "s3://") || strings.HasPrefix(location, "s3a://")
}

// Parse splits an s3:// or s3a:// URI.
func Parse(location string) (Location, error) {
	scheme, rest, ok := strings.Cut(location, "://")
	if !ok || (scheme != "s3" && scheme != "s3a") {
		return Location{}, fmt.Errorf("%s is not an s3:// or s3a:// URI", location)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return Location{}, fmt.Errorf("%s names no bucket: write s3://BUCKET/KEY", location)
	}
	return Location{Scheme: scheme, Bucket: bucket, Key: strings.TrimSuffix(key, "/")}, nil
}

// String is the URI.
func (l Location) String() string { return l.Scheme + "://" + l.Bucket + "/" + l.Key }

// Path is the key as an absolute path, the form commit.FS paths take.
func (l Location) Path() string { return "/" + l.Key }

// At is the location of an absolute path p in the same bucket.
func (l Location) At(p string) Location {
	return Location{Scheme: l.Scheme, Bucket: l.Bucket, Key: strings.TrimPrefix(p, "/")}
}
