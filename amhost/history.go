package amhost

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
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
func localHistory(c *conf.Config, root string, log *logrus.Logger) (func([]byte) error, am.DAGHistory) {
	dir := c.String("ebb.history.dir")
	if dir == "" {
		dir = filepath.Join(root, "history")
	}
	p := filepath.Join(dir, "local-"+time.Now().UTC().Format("20060102-150405.000")+".json")
	return func(b []byte) error {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
		log.Infof("history written to %s (ebb ui --history %s)", p, p)
		return nil
	}, LocalDAGHistory{Dir: DAGRecordsDir(p)}
}
