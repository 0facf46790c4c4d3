// Package s3fs is ebb's S3 toolbox on the AWS SDK for Go v2: s3:// and
// s3a:// locations (Parse), settings from Hadoop's fs.s3a.* keys and the
// AWS chain (SettingsFor), one client per bucket with a timeout on every
// call and a bounded retry with backoff (Store), and the adapters of ebb's
// ports onto a bucket: fsys's Lister for inputs (listing and globs), the
// committer's ObjectFS (commit's S3 protocol: pending multipart uploads
// completed at the job commit), ranged readers that resume a dropped
// stream, and streaming multipart writers that hold one part in memory.
//
// Every error is one line naming the URI and what to do, and never holds a
// secret key. It never imports the AM or the worker.
package s3fs
