package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/eventlog"
	"github.com/ebb-am/ebb/conf"
)

func newReplayCmd() *cobra.Command {
	var recorded bool
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Feed an AM's recorded events through the core again and print its actions",
		Long: `ebb replay reads an event log (ebb.am.event.log.enabled: events.log under the local root, or
<ebb.history.dir>/<app>/events-<attempt>.log on HDFS), builds the core the AM ran
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
	o, err := amconf.CoreOptions(c, h.IDPrefix)
	if err != nil {
		return nil, err
	}
	return core.NewCore(o)
}
