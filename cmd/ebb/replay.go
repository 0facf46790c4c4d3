package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/colinmarc/hdfs/v2"
	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/eventlog"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
)

func newReplayCmd() *cobra.Command {
	var recorded bool
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Feed an AM's recorded events through the core again and print its actions",
		Long: `ebb replay reads an event log (ebb.am.event.log.enabled: events.log under the local root, or
events-<attempt>.log in the application's staging directory on HDFS), builds the core the AM ran
with from the log's header, feeds it the recorded events at their recorded times, and prints each
action the core hands out, one line each, as the live AM recorded them. With --recorded it prints
the live AM's action lines instead, so that

    diff <(ebb replay --recorded events.log) <(ebb replay events.log)

prints nothing when the core decides today as it did then.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer func() { _ = f.Close() }() // read only
			if recorded {
				return eventlog.Recorded(f, cmd.OutOrStdout())
			}
			return eventlog.Replay(f, replayCore, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&recorded, "recorded", false, "print the actions the live AM recorded instead of replaying")
	return cmd
}

// replayCore builds the core a log's header describes: the keys it
// recorded over the defaults, mapped as the live AM maps them.
func replayCore(h eventlog.Header) (*core.Core, error) {
	c := conf.Defaults()
	for k, v := range h.Conf {
		if err := c.Set(k, v); err != nil {
			return nil, fmt.Errorf("the log's configuration: %w", err)
		}
	}
	o, err := coreOptions(c, h.IDPrefix)
	if err != nil {
		return nil, err
	}
	return core.NewCore(o)
}

// openEventLog starts the AM's event log when ebb.am.event.log.enabled
// says so (nil otherwise): the header holds the core's configuration
// (the mr3. and ebb. keys) and its id prefix, so that replayCore can build
// the same core.
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
func (h *hdfsDAGHistory) createEventLog(attempt int32) (io.WriteCloser, error) {
	h.once.Do(func() { h.err = h.mkdirs() })
	if h.err != nil {
		return nil, h.err
	}
	w, err := h.fs.Client().Create(eventLogPath(h.dir, attempt))
	if err != nil {
		return nil, err
	}
	return hdfsEventFile{w}, nil
}

// eventLogPath is where an AM attempt's event log goes in dir.
func eventLogPath(dir string, attempt int32) string {
	return fmt.Sprintf("%s/events-%d.log", dir, attempt)
}

// hdfsEventFile closes the event log on HDFS as other new files are
// closed (waiting out a last block still replicating).
type hdfsEventFile struct{ *hdfs.FileWriter }

func (f hdfsEventFile) Close() error { return hdfsfs.CloseWriter(f.FileWriter) }
