package amhost

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/s3fs"
	"github.com/ebb-am/ebb/yarnclient"
)

// HistoryDir is ebb.history.dir, or the user's .ebb/history.
func HistoryDir(c *conf.Config, user string) string {
	if d := strings.TrimSpace(c.String("ebb.history.dir")); d != "" {
		return d
	}
	return "/user/" + user + "/.ebb/history"
}

// hdfsHistory writes the application's history to HDFS, outside the
// staging directory, so it outlives the application. A directory an admin
// configured is used as it is; the user's own is made private.
func hdfsHistory(c *conf.Config, fs *hdfsfs.FS, user, app string, log *logrus.Logger) func([]byte) error {
	return func(b []byte) error {
		dir, err := fs.Path(HistoryDir(c, user))
		if err != nil {
			return err
		}
		if ok, err := fs.Exists(dir); err != nil {
			return err
		} else if !ok {
			if err := fs.MkdirPrivate(dir); err != nil {
				return err
			}
		}
		p := dir + "/" + app + ".json"
		if _, err := fs.WriteFile(p, b, 0o600); err != nil {
			return err
		}
		log.Debugf("ebb am: history written to %s (ebb history %s)", fs.URL(p), app)
		return nil
	}
}

// localHistory writes a local AM's history under ebb.history.dir, or
// history/ in its root (beside logs/, so `ebb ui --history` finds them):
// the snapshot as local-<start>.json, each finished DAG's record in
// local-<start>/ (daghistory.go).
func localHistory(c *conf.Config, root string, s3 *s3fs.Store, log *logrus.Logger) (func([]byte) error, am.DAGHistory, error) {
	dir := c.String("ebb.history.dir")
	if dir == "" {
		dir = filepath.Join(root, "history")
	}
	name := "local-" + time.Now().UTC().Format("20060102-150405.000")
	if s3fs.IsS3(dir) {
		loc, err := S3HistoryDir(dir)
		if err != nil {
			return nil, nil, err
		}
		log.Infof("history goes to %s.json (ebb ui --history %s.json)", loc.At(path.Join(loc.Path(), name)), loc.At(path.Join(loc.Path(), name)))
		return s3History(s3, loc, name, log), S3DAGHistory{St: s3, Dir: loc.At(path.Join(loc.Path(), name))}, nil
	}
	p := filepath.Join(dir, name+".json")
	return func(b []byte) error {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
		log.Infof("history written to %s (ebb ui --history %s)", p, p)
		return nil
	}, LocalDAGHistory{Dir: DAGRecordsDir(p)}, nil
}

// historyParts are the AM's history writers, on HDFS or on S3 as
// ebb.history.dir says, and the event log's maker.
func (s *yarnStart) historyParts(s3 *s3fs.Store) (func([]byte) error, am.DAGHistory, func() (io.WriteCloser, error), error) {
	app := s.cid.Attempt.App.String()
	if dir := HistoryDir(s.c, s.user); s3fs.IsS3(dir) {
		loc, err := S3HistoryDir(dir)
		if err != nil {
			return nil, nil, nil, err
		}
		noEvents := func() (io.WriteCloser, error) { return nil, yarnclient.ErrEventLogOnS3 }
		return s3History(s3, loc, app, s.log), S3DAGHistory{St: s3, Dir: loc.At(path.Join(loc.Path(), app))}, noEvents, nil
	}
	histDir, err := s.fs.Path(HistoryDir(s.c, s.user))
	if err != nil {
		return nil, nil, nil, err
	}
	dagHist := &HDFSDAGHistory{FS: s.fs, Dir: histDir + "/" + app}
	events := func() (io.WriteCloser, error) { return dagHist.createEventLog(s.cid.Attempt.Attempt) }
	return hdfsHistory(s.c, s.fs, s.user, app, s.log), dagHist, events, nil
}
