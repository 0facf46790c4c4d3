package amhost

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/s3fs"
)

// An ebb.history.dir on S3 (s3:// or s3a://) holds what one on HDFS holds,
// as objects: <dir>/<APP>.json, rewritten whole by each snapshot (a PUT
// replaces an object at once, so a reader never sees half of one), and
// <dir>/<APP>/<DAG id>.json. Who may read them is the bucket's policy's
// business: S3 has no per-object mode to make private as HDFS's 0700.
// The event log is appended to as the AM runs, which an object cannot be:
// it needs a history directory on HDFS (yarnclient.ErrEventLogOnS3).

// S3HistoryDir parses an s3:// or s3a:// history directory.
func S3HistoryDir(dir string) (s3fs.Location, error) {
	loc, err := s3fs.Parse(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return loc, fmt.Errorf("ebb.history.dir=%q: %w", dir, err)
	}
	return loc, nil
}

// S3DAGHistory keeps DAG records under an S3 prefix (Dir, the
// application's).
type S3DAGHistory struct {
	St  *s3fs.Store
	Dir s3fs.Location
}

var _ am.DAGHistory = S3DAGHistory{}

func (h S3DAGHistory) at(id string) s3fs.Location {
	return h.Dir.At(path.Join(h.Dir.Path(), id+".json"))
}

func (h S3DAGHistory) WriteDAG(id string, b []byte) error {
	return h.St.Put(context.Background(), h.at(id), b)
}

func (h S3DAGHistory) ReadDAG(id string) ([]byte, error) {
	if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("no DAG %q", id)
	}
	return h.St.Get(context.Background(), h.at(id))
}

// s3History writes the application's history snapshot to dir/app.json.
func s3History(st *s3fs.Store, dir s3fs.Location, app string, log *logrus.Logger) func([]byte) error {
	loc := dir.At(path.Join(dir.Path(), app+".json"))
	return func(b []byte) error {
		if err := st.Put(context.Background(), loc, b); err != nil {
			return err
		}
		log.Debugf("ebb am: history written to %s (ebb history %s)", loc, app)
		return nil
	}
}

// ReadS3History reads an application's history snapshot and its DAG
// records from an S3 history directory, for `ebb history`.
func ReadS3History(st *s3fs.Store, dir, app string) ([]byte, am.DAGHistory, error) {
	loc, err := S3HistoryDir(dir)
	if err != nil {
		return nil, nil, err
	}
	b, err := st.Get(context.Background(), loc.At(path.Join(loc.Path(), app+".json")))
	if err != nil {
		return nil, nil, fmt.Errorf("no history of %s in %s: %w", app, loc, err)
	}
	return b, S3DAGHistory{St: st, Dir: loc.At(path.Join(loc.Path(), app))}, nil
}
