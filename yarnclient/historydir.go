package yarnclient

import (
	"errors"
	"strings"

	"github.com/ebb-am/ebb/s3fs"
)

// ErrEventLogOnS3 refuses ebb.am.event.log.enabled with an S3 history
// directory: the event log is appended to as the AM runs, which an S3
// object cannot be.
var ErrEventLogOnS3 = errors.New("ebb.am.event.log.enabled=true needs ebb.history.dir on HDFS: " +
	"the event log is appended to as the AM runs, and an S3 object cannot be; set ebb.history.dir to an hdfs:// path or turn the event log off")

// checkHistoryDir refuses, before an application is asked for, an
// ebb.history.dir on S3 the AM could not use: one naming no bucket, or
// one the event log would have to append to.
func (c *Client) checkHistoryDir() error {
	dir := strings.TrimSpace(c.conf.String("ebb.history.dir"))
	if !s3fs.IsS3(dir) {
		return nil
	}
	if _, err := s3fs.Parse(dir); err != nil {
		return c.conf.ErrorFor("ebb.history.dir", "an hdfs:// path or an s3://BUCKET/PREFIX URI")
	}
	if c.conf.Bool("ebb.am.event.log.enabled") {
		return ErrEventLogOnS3
	}
	return nil
}
