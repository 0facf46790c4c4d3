package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am/kubeworld"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/kubeclient"
)

func newKillCmd() *cobra.Command {
	var timeout time.Duration
	var master string
	cmd := &cobra.Command{
		Use:   "kill APPLICATION_ID",
		Short: "Kill an ebb application on YARN (and wait until it is KILLED) or on Kubernetes (delete its objects)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if master == "" {
				c, err := loadClientConf()
				if err != nil {
					return err
				}
				master = c.String("mr3.master.mode")
			}
			if master == "kubernetes" {
				ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
				defer cancel()
				return runKubeKill(ctx, args[0], cmd.OutOrStdout())
			}
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
	cmd.Flags().StringVar(&master, "master", "", "yarn, or kubernetes (the application's name as `ebb submit` printed it; mr3.k8s.namespace); default mr3.master.mode")
	return cmd
}

// runKubeKill deletes what application app made on Kubernetes: the AM
// pod (and its workers), its ConfigMap, Secret, Service, service account
// and roles.
func runKubeKill(ctx context.Context, app string, w io.Writer) error {
	c, err := loadClientConf()
	if err != nil {
		return err
	}
	cs, _, err := kubeworld.Connect(c.String("mr3.k8s.client.config.file"), "")
	if err != nil {
		return err
	}
	ns := c.String("mr3.k8s.namespace")
	gone, err := kubeclient.Kill(ctx, cs, ns, app)
	out := &printer{w: w}
	if err != nil {
		return out.done(err)
	}
	if len(gone) == 0 {
		return out.done(fmt.Errorf("no application %s in namespace %s (mr3.k8s.namespace): nothing labelled ebb.io/app=%s", app, ns, app))
	}
	// Worker pods carry the label too: they go with the rest, whether or
	// not the AM, stopping, got to delete them.
	out.printf("application %s killed: deleted %s\n", app, strings.Join(gone, ", "))
	return out.done(nil)
}
