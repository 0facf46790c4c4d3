package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/yarnclient"
)

func newCleanCmd() *cobra.Command {
	var timeout time.Duration
	var lib bool
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove the staging directories of your ebb applications that have ended",
		Long: `clean removes /user/<user>/.ebb/staging/<application id> in HDFS for every application
that is FINISHED, FAILED or KILLED (an AM that died, or was killed, cannot remove its own), and
for applications the ResourceManager no longer knows once they are an hour old. Applications
that still run keep theirs: a new AM attempt needs it. It prints each directory it removed.
It touches /user/<user>/.ebb/lib, the ebb binaries later submits reuse, only with --lib: then it
also removes every build there that no running application uses and that is not this ebb's own
(each submission names its binary in its staging directory; if a running application was
submitted by an ebb too old to name it, nothing is removed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := loadClientConf()
			if err != nil {
				return err
			}
			yc, err := newYarnClient(c)
			if err != nil {
				return err
			}
			// Only reports went over this connection.
			defer func() { _ = yc.Close() }()
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			removed, err := yc.Clean(ctx, time.Now())
			out := &printer{w: cmd.OutOrStdout()}
			for _, r := range removed {
				out.printf("removed %s: %s\n", r.Path, r.Reason)
			}
			n := len(removed)
			if lib && err == nil {
				var pruned []yarnclient.Pruned
				pruned, err = yc.PruneLib(ctx)
				for _, p := range pruned {
					out.printf("removed %s: %s\n", p.Path, p.Reason)
				}
				n += len(pruned)
			}
			if n == 0 && err == nil {
				out.println("nothing to remove")
			}
			return out.done(err)
		},
	}
	cmd.Flags().BoolVar(&lib, "lib", false, "also remove the ebb binaries in /user/<user>/.ebb/lib that no running application uses, but for this ebb's own")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long to spend asking the ResourceManager and HDFS")
	return cmd
}
