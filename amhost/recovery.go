package amhost

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/recoverylog"
	"github.com/ebb-am/ebb/yarnclient"
)

// What `ebb am` on YARN keeps in the staging directory so that a new AM
// attempt can take over from one that died: the application's secret
// (workers and clients of the earlier attempt hold it) and the recovery
// log under recovery/.

// stagedAMAddress is the file in the staging directory naming the current
// AM attempt's worker and client address.
const stagedAMAddress = "am-address"

// workerReturnWindow is how long recovered DAGs wait for the workers of
// the earlier attempt that YARN kept to reconnect with their outputs.
const workerReturnWindow = 30 * time.Second

// recordLinger is how long a task's record may wait to share a segment.
const recordLinger = 200 * time.Millisecond

// appSecret is the application's secret: the one an earlier attempt wrote
// to the staging directory, so that its workers and clients still
// authenticate, or a new one for the first attempt.
func appSecret(fs *hdfsfs.FS, staging string, log *logrus.Logger) (string, error) {
	b, err := fs.ReadFile(staging + "/" + yarnclient.StagedSecret)
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		log.Info("ebb am: keeping the secret of the earlier attempt")
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("reading the secret of an earlier attempt: %w", err)
	}
	return am.NewSecret()
}

// openRecoveryLog reads what earlier attempts recorded and starts this
// attempt's recorder after it.
func openRecoveryLog(fs *hdfsfs.FS, staging string, c *conf.Config, log *logrus.Logger) (*am.Recovery, []recoverylog.Record, error) {
	dir := staging + "/recovery"
	if err := fs.MkdirPrivate(dir); err != nil {
		return nil, nil, err
	}
	return openRecoveryIn(hdfsfs.RecoveryLog{FS: fs}, dir, c, log)
}

// openRecoveryIn opens the recovery log in dir of rfs (made).
func openRecoveryIn(rfs recovery.FS, dir string, c *conf.Config, log *logrus.Logger) (*am.Recovery, []recoverylog.Record, error) {
	// The log keeps the ended DAGs the AM keeps whole; older ones live in
	// the history only.
	d, all, records, torn, err := recovery.Open(rfs, dir, recovery.KeepEnded(c.Int("ebb.am.dag.retained.count")))
	if err != nil {
		return nil, nil, err
	}
	if torn != nil {
		log.Warnf("ebb am: recovery log %s: %s", dir, torn)
	}
	if len(records) > 0 {
		log.Infof("ebb am: recovery log %s: %d records (%d bytes) from earlier attempts", dir, len(records), len(all))
	}
	rec := recovery.NewRecorder(d, all, recordLinger, func(err error) { log.Warnf("ebb am: recovery log: %v (retrying)", err) })
	kept := map[string]string{}
	for k, v := range c.Effective() {
		if strings.HasPrefix(k, "mr3.") || strings.HasPrefix(k, "ebb.") {
			kept[k] = v
		}
	}
	return &am.Recovery{Recorder: rec, Conf: kept}, records, nil
}

// resumedDAGs lists the DAGs the log accepted, in order.
func resumedDAGs(records []recoverylog.Record) []string {
	var ids []string
	for _, r := range records {
		if r.DAGAccepted != nil {
			ids = append(ids, r.DAGAccepted.DAG)
		}
	}
	return ids
}
