package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
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
			rm := yarn.NewClient(c.RMAddress(), yarnUser())
			defer rm.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			rep, err := killApp(ctx, rm, id)
			if err != nil {
				return err
			}
			// A killed AM may not get to remove its staging directory.
			if err := removeStaging(c, rep); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "ebb kill: %v\n", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "application %s %s (%s)\n", id, rep.State, rep.Final)
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long to wait for the application to end")
	return cmd
}

// killApp asks the RM to kill the application and polls until it ended.
func killApp(ctx context.Context, rm *yarn.Client, id yarn.AppID) (yarn.AppReport, error) {
	for {
		rep, err := rm.Report(ctx, id)
		if err != nil {
			return rep, fmt.Errorf("report of %s: %w", id, err)
		}
		if rep.State.Done() {
			return rep, nil
		}
		if _, err := rm.Kill(ctx, id, "killed by ebb kill"); err != nil {
			return rep, fmt.Errorf("killing %s: %w", id, err)
		}
		select {
		case <-ctx.Done():
			return rep, fmt.Errorf("application %s is still %s: %w", id, rep.State, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// removeStaging removes an ended application's staging directory.
func removeStaging(c *conf.Config, rep yarn.AppReport) error {
	user := rep.User
	if user == "" {
		user = yarnUser()
	}
	fs, err := hdfsfs.Dial(c.DefaultFS(), yarnUser())
	if err != nil {
		return err
	}
	defer fs.Close()
	return fs.RemoveAll(stagingDir(user, rep.ID))
}
