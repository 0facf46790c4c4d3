package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnclient"
)

type submitOptions struct {
	yarnclient.SubmitOptions
	detach bool
	// priority: --priority, set as ebb.am.priority when given.
	priority int
	// krb: --principal and --keytab (a secure cluster); empty means the
	// ticket cache kinit left.
	krb kerberos.Options
}

func newSubmitCmd() *cobra.Command {
	var cf confFlags
	var o submitOptions
	var master string
	cmd := &cobra.Command{
		Use:   "submit [DAG.yaml]",
		Short: "Start an ebb AM on YARN (from HADOOP_CONF_DIR) and run a DAG on it",
		Long: `submit uploads the effective configuration and the DAG to a staging directory in HDFS
(/user/<user>/.ebb/staging/<application id>) and the ebb binary, once per build, to
/user/<user>/.ebb/lib/<sha256>/ebb (reused by later submits; ebb.lib.uri names an installed one
instead), submits an application of type
EBB whose AM is ` + "`ebb am`" + `, prints its id and tracking URL, and follows the DAG to its end
(unless --detach). It exits non-zero when the application does not succeed. DAG inputs and
outputs should be hdfs:// URLs: the AM and its workers run on the cluster. An output that already
holds results is refused before anything is submitted, unless --overwrite (or overwrite: true in
the DAG) says to replace them, which happens only when the DAG succeeds.

Without a DAG, or with mr3.am.session.mode=true, the AM is a session: ` + "`ebb dag submit --app ID`" + `
sends it DAGs, and it finishes after ebb.session.idle.timeout.secs without one.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			c, err := cf.load(newLogger("warn", "", ""))
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("priority") {
				// Through the key: its bounds and error messages are the one rule.
				if err := c.Set("ebb.am.priority", strconv.Itoa(o.priority)); err != nil {
					return err
				}
			}
			if len(args) == 1 {
				o.DAGPath = args[0]
			} else {
				o.Session = true
			}
			if cmd.Flags().Changed("master") {
				if err := c.Set("mr3.master.mode", master); err != nil {
					return err
				}
			}
			switch c.String("mr3.master.mode") {
			case "kubernetes":
				return runKubeSubmit(ctx, c, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			case "local":
				if o.DAGPath == "" {
					return errors.New("mr3.master.mode=local runs one DAG on this machine: give a DAG file (a session needs yarn or kubernetes)")
				}
				return runLocal(ctx, cmd.OutOrStdout(), cf, localRunOptions{specPath: o.DAGPath, output: o.Output, overwrite: o.Overwrite}, false)
			}
			errOut := &printer{w: cmd.ErrOrStderr()}
			o.Warn = func(w string) { errOut.println("ebb submit: warning:", w) }
			o.Progress = func(s string) { errOut.println("ebb submit:", s) }
			return runSubmit(ctx, c, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cf.register(cmd)
	f := cmd.Flags()
	f.StringVar(&master, "master", "yarn", "where the AM runs: yarn, kubernetes (docs/kubernetes.md) or local (as `ebb local run`); sets mr3.master.mode")
	f.BoolVar(&o.detach, "detach", false, "return once the AM runs (exit non-zero if the application fails first)")
	f.StringVar(&o.Queue, "queue", "", "the YARN queue (default: the cluster's default)")
	f.IntVar(&o.priority, "priority", -1, "the application's YARN priority (ebb.am.priority; higher goes first in a full queue)")
	f.StringVar(&o.Name, "name", "", "the application name (default: the DAG's name, or ebb-session)")
	f.StringVar(&o.Output, "output", "", "override the DAG's output (an hdfs:// URL)")
	f.BoolVar(&o.Overwrite, "overwrite", false, "replace an output that already holds results, once the DAG succeeds")
	f.StringVar(&o.krb.Principal, "principal", "", "on a Kerberos cluster: log in as this principal from --keytab (default: the ticket cache, KRB5CCNAME)")
	f.StringVar(&o.krb.Keytab, "keytab", "", "on a Kerberos cluster: the keytab for --principal (also shipped, 0600, to the AM, which logs in with it to replace tokens that reach their maximum lifetime)")
	return cmd
}

func runSubmit(ctx context.Context, c *conf.Config, o submitOptions, out, errOut io.Writer) error {
	t0 := time.Now()
	yc, err := newYarnClientAs(c, o.krb)
	if err != nil {
		return err
	}
	// Only reports and the submission went over this connection, and
	// their answers are in.
	defer func() { _ = yc.Close() }()
	p := &printer{w: out}
	sweep(ctx, yc, errOut)
	id, err := yc.Submit(ctx, o.SubmitOptions)
	if err != nil {
		return err
	}
	p.printf("submitted application %s (type %s) in %s\n", id, yarnclient.AppType, time.Since(t0).Round(time.Millisecond))
	if o.detach {
		// Detached, but not blind: wait until the AM runs, so that an
		// application the RM fails at once (an unknown queue) exits
		// non-zero with the RM's reason and leaves no staging behind.
		rep, err := yc.Detach(ctx, id, 5*time.Minute)
		if err != nil {
			return p.done(exitCode2(err))
		}
		p.printf("application %s %s; tracking URL: %s\n", id, rep.State, rep.TrackingURL)
		return p.done(nil)
	}
	_, err = yc.Follow(ctx, id, t0, func(line string) { p.println(line) })
	if errors.Is(err, context.Canceled) {
		// Ctrl-C stops following, not the application.
		return p.done(fmt.Errorf("stopped following %s; the application keeps running: follow it in the YARN UI, stop it with `ebb kill %s`", id, id))
	}
	return p.done(exitCode2(err))
}

// sweep removes what earlier applications of this user left behind (an AM
// that died on its last attempt cannot remove its staging directory, and
// a detached submission has nobody following it), and says so. A failure
// here never stops a submission.
func sweep(ctx context.Context, yc *yarnclient.Client, errOut io.Writer) {
	p := &printer{w: errOut}
	removed, err := yc.Clean(ctx, time.Now())
	for _, r := range removed {
		p.printf("ebb submit: removed the staging directory of %s: %s\n", r.App, r.Reason)
	}
	if err != nil {
		p.printf("ebb submit: warning: cleaning old staging directories: %v\n", err)
	}
}
