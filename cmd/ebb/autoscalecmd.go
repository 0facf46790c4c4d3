package main

import (
	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/amclient"
)

// `ebb autoscale` retunes a running AM's autoscaler, as MR3's MasterControl
// does: the thresholds and minimum hosts, for one group or all.
// newAutoscaleCmd is `ebb autoscale`; resolve finds AMs on YARN.
func newAutoscaleCmd(resolve amResolver) *cobra.Command {
	f := amFlags{resolve: resolve}
	var group string
	var out, in, minHosts int
	cmd := &cobra.Command{
		Use:   "autoscale --out PERCENT --in PERCENT --min-hosts N [--group G]",
		Short: "Change the autoscaling thresholds of a running AM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer func() { _ = c.Close() }()
			if err := c.SetAutoscale(cmd.Context(), amclient.Autoscale{Group: group, OutPercent: out, InPercent: in, MinHosts: minHosts}); err != nil {
				return err
			}
			target := "every group"
			if group != "" {
				target = "group " + group
			}
			p := &printer{w: cmd.OutOrStdout()}
			p.printf("%s: scale out at %d%%, scale in at %d%%, keep %d hosts\n", target, out, in, minHosts)
			return p.done(nil)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&group, "group", "", "the ContainerGroup (default: every group)")
	cmd.Flags().IntVar(&out, "out", 80, "mr3.auto.scale.out.threshold.percent")
	cmd.Flags().IntVar(&in, "in", 50, "mr3.auto.scale.in.threshold.percent")
	cmd.Flags().IntVar(&minHosts, "min-hosts", 1, "mr3.auto.scale.in.min.hosts")
	return cmd
}
