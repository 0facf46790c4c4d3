package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/scheduler"
)

// `ebb autoscale` retunes a running AM's autoscaler, as MR3's MasterControl
// does: the thresholds and minimum hosts, and ebb's latency target, for one
// group or all. Only what is given changes: --target alone leaves the
// thresholds as they are (the thresholds' three flags go together, with
// their defaults for those left out, as they always have).
// newAutoscaleCmd is `ebb autoscale`; resolve finds AMs on YARN.
func newAutoscaleCmd(resolve amResolver) *cobra.Command {
	f := amFlags{resolve: resolve}
	var group, target string
	var out, in, minHosts int
	cmd := &cobra.Command{
		Use:   "autoscale [--out PERCENT --in PERCENT --min-hosts N] [--target T] [--group G]",
		Short: "Change the autoscaling thresholds or the latency target of a running AM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			setTarget := fl.Changed("target")
			setThresholds := !setTarget || fl.Changed("out") || fl.Changed("in") || fl.Changed("min-hosts")
			var p95 float64
			if setTarget {
				v, err := targetValue(target)
				if err != nil {
					return err
				}
				p95 = v
			}
			c, err := f.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer func() { _ = c.Close() }()
			which := "every group"
			if group != "" {
				which = "group " + group
			}
			p := &printer{w: cmd.OutOrStdout()}
			if setThresholds {
				if err := c.SetAutoscale(cmd.Context(), amclient.Autoscale{Group: group, OutPercent: out, InPercent: in, MinHosts: minHosts}); err != nil {
					return err
				}
				p.printf("%s: scale out at %d%%, scale in at %d%%, keep %d hosts\n", which, out, in, minHosts)
			}
			if setTarget {
				if err := c.SetAutoscaleTarget(cmd.Context(), group, p95); err != nil {
					return err
				}
				p.printf("%s: latency target p95 %g (each DAG within %g times its critical path, 95 in 100)\n", which, p95, p95)
			}
			return p.done(nil)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&group, "group", "", "the ContainerGroup (default: every group)")
	cmd.Flags().IntVar(&out, "out", 80, "mr3.auto.scale.out.threshold.percent")
	cmd.Flags().IntVar(&in, "in", 50, "mr3.auto.scale.in.threshold.percent")
	cmd.Flags().IntVar(&minHosts, "min-hosts", 1, "mr3.auto.scale.in.min.hosts")
	cmd.Flags().StringVar(&target, "target", "", scheduler.KeyTargetSlowdown+": the p95 slowdown to hold")
	return cmd
}

// targetValue checks a --target value against the key's own range, so
// that a bad one is refused before any AM is asked, in the words the
// key's table uses.
func targetValue(v string) (float64, error) {
	k, _ := conf.Lookup(scheduler.KeyTargetSlowdown)
	if err := conf.Defaults().Set(k.Name, v); err != nil {
		return 0, fmt.Errorf("--target %q: %s must be %s", v, k.Name, k.Allowed())
	}
	return strconv.ParseFloat(v, 64)
}
