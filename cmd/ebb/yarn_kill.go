package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am/yarn"
)

func newKillCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "kill APPLICATION_ID",
		Short: "Kill an ebb application on YARN and wait until it is KILLED",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := yarn.ParseAppID(args[0])
			if err != nil {
				return err
			}
			c, err := loadClientConf()
			if err != nil {
				return err
			}
			yc, err := newYarnClient(c)
			if err != nil {
				return err
			}
			// Only reports and the kill went over this connection.
			defer func() { _ = yc.Close() }()
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			rep, err := yc.Kill(ctx, id)
			if err != nil {
				return err
			}
			// A killed AM may not get to remove its staging directory.
			errOut, out := &printer{w: cmd.ErrOrStderr()}, &printer{w: cmd.OutOrStdout()}
			if err := yc.RemoveStaging(rep); err != nil {
				errOut.printf("ebb kill: %v\n", err)
			}
			for _, line := range yc.Settled {
				out.printf("%s\n", line)
			}
			out.printf("application %s %s (%s)\n", id, rep.State, rep.Final)
			return out.done(nil)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long to wait for the application to end")
	return cmd
}
