package amhost

import (
	"fmt"
	"io"
	"strings"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/eventlog"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
)

// openEventLog starts the AM's event log when ebb.am.event.log.enabled
// says so (nil otherwise): the header holds the core's configuration
// (the mr3. and ebb. keys) and its id prefix, so that `ebb replay` can
// build the same core.
func openEventLog(c *conf.Config, idPrefix string, create func() (io.WriteCloser, error)) (am.EventLog, error) {
	if !c.Bool("ebb.am.event.log.enabled") {
		return nil, nil
	}
	out, err := create()
	if err != nil {
		return nil, fmt.Errorf("the event log (ebb.am.event.log.enabled): %w", err)
	}
	h := eventlog.Header{IDPrefix: idPrefix, Conf: map[string]string{}}
	for k, v := range c.Effective() {
		if strings.HasPrefix(k, "mr3.") || strings.HasPrefix(k, "ebb.") {
			h.Conf[k] = v
		}
	}
	return eventlog.NewWriter(out, h, c.Int64("ebb.am.event.log.max.mb")<<20)
}

// createEventLog creates an AM attempt's event log on HDFS beside the
// application's history (<ebb.history.dir>/<app>/events-<attempt>.log),
// not in the staging directory beside the recovery log: the staging
// directory goes when the application ends, and the log is for after.
func (h *HDFSDAGHistory) createEventLog(attempt int32) (io.WriteCloser, error) {
	if err := h.ensureDirs(); err != nil {
		return nil, err
	}
	w, err := h.FS.Client().Create(EventLogPath(h.Dir, attempt))
	if err != nil {
		return nil, err
	}
	return hdfsEventFile{w}, nil
}

// EventLogPath is where an AM attempt's event log goes in an application's
// history directory.
func EventLogPath(dir string, attempt int32) string {
	return fmt.Sprintf("%s/events-%d.log", dir, attempt)
}

// hdfsEventFile closes the event log on HDFS as other new files are
// closed (waiting out a last block still replicating).
type hdfsEventFile struct{ *hdfs.FileWriter }

func (f hdfsEventFile) Close() error { return hdfsfs.CloseWriter(f.FileWriter) }
