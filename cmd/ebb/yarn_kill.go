package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"ebb/am/yarn"
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
