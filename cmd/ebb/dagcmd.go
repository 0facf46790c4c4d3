package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/amhost"
	"github.com/ebb-am/ebb/yarnclient"
)

// amResolver finds a YARN application's AM (see yarnAMs): app is an
// application id, or empty (or "session") for the user's running session,
// started (telling errOut) when there is none and start is true.
type amResolver interface {
	findAM(ctx context.Context, app string, start bool, cf confFlags, errOut io.Writer) (yarnclient.AM, error)
}

// amFlags find a running AM: --am and a secret, a local session file, or
// a YARN application through resolve.
type amFlags struct {
	addr       string
	secretFile string
	session    string
	// app names a YARN application whose AM to use.
	app string
	// mayStart: with no AM named, a session may be started (dag submit
	// only: following or killing must not start anything).
	mayStart bool
	// resolve finds --app, or the user's session when no AM is named;
	// nil in a build without YARN.
	resolve amResolver
	// found is the YARN AM dial found (App empty when the AM was named
	// directly): a dropped connection is followed to the next attempt.
	found yarnclient.AM
	// cf is the configuration for finding or starting a session on YARN
	// (--conf and --set of `ebb dag submit`).
	cf confFlags
}

func (f *amFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.addr, "am", "", "the AM's client address (host:port)")
	cmd.Flags().StringVar(&f.secretFile, "secret-file", "", "file holding the application secret (default: $EBB_SECRET)")
	cmd.Flags().StringVar(&f.session, "session", "", "a local AM's session file (its root's am.json)")
	cmd.Flags().StringVar(&f.app, "app", "", "a YARN application id: find its AM through the ResourceManager")
}

// target finds the AM the flags name: --am with its secret, a local
// session file, or a YARN application (--app, or the user's session when
// no AM is named at all).
func (f *amFlags) target(ctx context.Context, errOut io.Writer) (amclient.Target, error) {
	addr, secret := f.addr, os.Getenv("EBB_SECRET")
	if f.session != "" {
		b, err := os.ReadFile(f.session)
		if err != nil {
			return amclient.Target{}, err
		}
		var s amhost.LocalSession
		if err := json.Unmarshal(b, &s); err != nil {
			return amclient.Target{}, fmt.Errorf("%s: %w", f.session, err)
		}
		addr = s.Address
		if f.secretFile == "" {
			f.secretFile = s.SecretFile
		}
	}
	var attempt int32
	if f.app != "" || (f.addr == "" && f.session == "" && f.resolve != nil) {
		if f.resolve == nil {
			return amclient.Target{}, errors.New("--app needs YARN support, which this build lacks")
		}
		found, err := f.resolve.findAM(ctx, f.app, f.mayStart, f.cf, errOut)
		if err != nil {
			return amclient.Target{}, err
		}
		addr, secret, attempt, f.found = found.Addr, found.Secret, found.Attempt, found
	}
	if f.secretFile != "" {
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return amclient.Target{}, err
		}
		secret = strings.TrimSpace(string(b))
	}
	if addr == "" {
		return amclient.Target{}, errors.New("no AM given: use --am ADDRESS, --session FILE or --app APPLICATION_ID")
	}
	if secret == "" {
		return amclient.Target{}, errors.New("no application secret: use --secret-file or set EBB_SECRET")
	}
	return amclient.Target{Addr: addr, Secret: secret, Attempt: attempt}, nil
}

// dial connects to the AM the flags name; on YARN the client follows the
// application to the attempt that takes over when this one goes away.
// The command has its answers by the time it closes the client.
func (f *amFlags) dial(ctx context.Context, errOut io.Writer) (*amclient.Client, error) {
	t, err := f.target(ctx, errOut)
	if err != nil {
		return nil, err
	}
	return amclient.Dial(t, amclient.Options{Locate: f.locator(errOut)})
}

// locator re-resolves the YARN application the flags found (nil: the AM
// was named directly, there is nowhere else to look).
func (f *amFlags) locator(errOut io.Writer) amclient.Locator {
	if f.found.App == "" || f.resolve == nil {
		return nil
	}
	app := f.found.App
	return amclient.Await(func(ctx context.Context) (amclient.Target, error) {
		found, err := f.resolve.findAM(ctx, app, false, f.cf, errOut)
		if err != nil {
			return amclient.Target{}, err // the application ended (its status is in err), or ctx did
		}
		return amclient.Target{Addr: found.Addr, Secret: found.Secret, Attempt: found.Attempt}, nil
	}, 500*time.Millisecond)
}

// newDAGCmd is `ebb dag`; resolve finds AMs on YARN.
func newDAGCmd(resolve amResolver) *cobra.Command {
	cmd := &cobra.Command{Use: "dag", Short: "Submit, follow and kill DAGs on a running AM"}
	cmd.AddCommand(newDAGSubmitCmd(resolve), newDAGStatusCmd(resolve), newDAGKillCmd(resolve))
	return cmd
}

// newDAGSubmitCmd is `ebb dag submit`.
func newDAGSubmitCmd(resolve amResolver) *cobra.Command {
	f := amFlags{mayStart: true, resolve: resolve}
	var wait, overwrite bool
	var output string
	submit := &cobra.Command{
		Use:   "submit DAG.yaml",
		Short: "Submit a DAG to a running AM",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			c, err := f.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer func() { _ = c.Close() }()
			base, _ := filepath.Abs(filepath.Dir(args[0]))
			id, err := c.Submit(cmd.Context(), amclient.Submit{Spec: spec, SpecName: args[0], BaseDir: base, Output: output,
				Overwrite: overwrite, Client: "ebb dag submit"})
			if err != nil {
				return err
			}
			out := &printer{w: cmd.OutOrStdout()}
			out.println(id)
			if !wait {
				return out.done(nil)
			}
			return out.done(waitDAG(cmd.Context(), out, c, id))
		},
	}
	f.register(submit)
	// A session this command starts is configured like `ebb submit`'s
	// (e.g. --set mr3.am.resource.memory.mb=1024 on a small cluster).
	f.cf.register(submit)
	submit.Flags().BoolVar(&wait, "wait", false, "follow the DAG to its end; exit non-zero unless it succeeds")
	submit.Flags().StringVar(&output, "output", "", "override the spec's output")
	submit.Flags().BoolVar(&overwrite, "overwrite", false, "replace an output that already holds results, once the DAG succeeds")
	return submit
}

// newDAGStatusCmd is `ebb dag status`.
func newDAGStatusCmd(resolve amResolver) *cobra.Command {
	sf := amFlags{resolve: resolve}
	var asJSON bool
	var uiURL string
	var page amclient.Page
	statusCmd := &cobra.Command{
		Use:   "status [DAG_ID]",
		Short: "Show one DAG, or every DAG and the ContainerGroups",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return statusJSON(cmd.Context(), cmd.OutOrStdout(), sf, uiURL, args)
			}
			c, err := sf.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer func() { _ = c.Close() }()
			// An AM that died since it was found: the client asks the
			// attempt that took over, and the user hears of it.
			before := c.Attempt()
			defer func() {
				if a := c.Attempt(); a != before {
					(&printer{w: cmd.ErrOrStderr()}).printf("AM attempt %d took over\n", a)
				}
			}()
			out := &printer{w: cmd.OutOrStdout()}
			if len(args) == 1 {
				d, err := c.Status(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				printDAG(out, d)
				return out.done(nil)
			}
			return out.done(printStatus(cmd.Context(), out, c, page))
		},
	}
	sf.register(statusCmd)
	statusCmd.Flags().BoolVar(&asJSON, "json", false, "print the AM's JSON API answer (api/v1/dags[/ID]), as the UI reads it")
	statusCmd.Flags().StringVar(&uiURL, "url", "", "with --json: the AM's tracking URL (default: the --session file's status URL)")
	statusCmd.Flags().StringVar(&page.State, "state", "", "list only DAGs in this state: SUBMITTED, RUNNING, SUCCEEDED, FAILED or KILLED")
	statusCmd.Flags().IntVar(&page.Limit, "limit", 20, "list at most this many DAGs, the newest first (0: all)")
	statusCmd.Flags().StringVar(&page.Before, "before", "", "list the DAGs submitted before this DAG id (the next page)")
	return statusCmd
}

// printStatus prints a page of DAGs, then the ContainerGroups and the
// autoscaler's last ten transitions.
func printStatus(ctx context.Context, out *printer, c *amclient.Client, page amclient.Page) error {
	l, err := c.List(ctx, page)
	if err != nil {
		return err
	}
	for _, d := range l.DAGs {
		printDAG(out, d)
	}
	if l.NextBefore != "" {
		out.printf("%d of %d DAGs shown, newest first; the next %d: --before %s (--limit 0: all; --state S: only those in S)\n",
			len(l.DAGs), l.Total, page.Limit, l.NextBefore)
	}
	cs, err := c.Cluster(ctx)
	if err != nil {
		return err
	}
	for _, g := range cs.Groups {
		out.printf("group %s: %s, usage %.0f%%, %d workers (+%d pending) on %d nodes, %d queued, %d running%s%s\n",
			g.Name, g.State, g.UsagePercent, g.Workers, g.PendingWorkers, g.Nodes, g.QueuedAttempts, g.RunningAttempts,
			targetLine(g), preemptLine(g))
	}
	trs := cs.Transitions
	if len(trs) > 10 {
		trs = trs[len(trs)-10:]
	}
	for _, tr := range trs {
		out.printf("  %s group %s: %s → %s: %s\n", tr.At.Format("15:04:05"), tr.Group, tr.From, tr.To, tr.Reason)
	}
	return nil
}

// newDAGKillCmd is `ebb dag kill`.
func newDAGKillCmd(resolve amResolver) *cobra.Command {
	kf := amFlags{resolve: resolve}
	kill := &cobra.Command{
		Use:   "kill DAG_ID",
		Short: "Kill a DAG",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := kf.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer func() { _ = c.Close() }()
			return c.Kill(cmd.Context(), args[0], "killed by ebb dag kill")
		},
	}
	kf.register(kill)
	return kill
}

func printDAG(out *printer, d amclient.DAG) {
	out.printf("%s %s %s: %d/%d tasks, %d running, %d failed attempts", d.ID, d.Name, d.State,
		d.SucceededTasks, d.TotalTasks, d.RunningAttempts, d.FailedAttempts)
	if d.Recovered {
		out.printf(", recovered")
	}
	if d.BackupsLaunched > 0 {
		out.printf(", %d backup attempts (%d won, %d lost)", d.BackupsLaunched, d.BackupsWon, d.BackupsLost)
	}
	if len(d.SlowNodes) > 0 {
		out.printf(", slow nodes %s", strings.Join(d.SlowNodes, " "))
	}
	if d.SReq != 0 || d.Slots != 0 {
		out.printf(", s_req %.1f, utility %.2f, %d slots", d.SReq, d.Utility, d.Slots)
	}
	if d.Output != "" {
		out.printf(", output %s", d.Output)
	}
	if d.Diagnostics != "" {
		out.printf(": %s", d.Diagnostics)
	}
	out.println()
	printCounters(out, d.Counters)
}

// printCounters prints a DAG's counters as Hadoop's job client prints a
// job's: "Counters: N", then each group and its counters, indented by
// tabs. Nothing when there are none.
func printCounters(out *printer, cs []amclient.Counter) {
	if len(cs) == 0 {
		return
	}
	out.printf("\tCounters: %d\n", len(cs))
	group := ""
	for i, c := range cs {
		if i == 0 || c.Group != group {
			group = c.Group
			out.printf("\t\t%s\n", group)
		}
		out.printf("\t\t\t%s=%d\n", c.Name, c.Value)
	}
}

// waitDAG polls a remote DAG until it ends. When the AM goes away and the
// client moves to the attempt that took over, it says so and goes on.
func waitDAG(ctx context.Context, out *printer, c *amclient.Client, id string) error {
	last := ""
	for {
		attempt := c.Attempt()
		d, err := c.Status(ctx, id)
		var gone *amclient.GoneError
		if errors.As(err, &gone) {
			return &exitError{code: 2, err: err}
		}
		if err != nil {
			return err
		}
		if a := c.Attempt(); a != attempt {
			out.println(amclient.TakeoverLine(a, []amclient.DAG{d}))
		}
		line := fmt.Sprintf("%s %s: %d/%d tasks", d.ID, d.State, d.SucceededTasks, d.TotalTasks)
		if line != last {
			out.println(line)
			last = line
		}
		switch d.State {
		case amclient.Succeeded:
			printCounters(out, d.Counters)
			return nil
		case amclient.Failed, amclient.Killed:
			return &exitError{code: 2, err: fmt.Errorf("DAG %s %s: %s", id, d.State, d.Diagnostics)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// targetLine is a group's latency target and the p95 slowdown measured
// against it, "" for a group with neither (not sized from the work in
// sight, and no DAG measured).
func targetLine(g amclient.Group) string {
	measured := "no DAG measured yet"
	if g.MeasuredDAGs > 0 {
		dags := "DAGs"
		if g.MeasuredDAGs == 1 {
			dags = "DAG"
		}
		measured = fmt.Sprintf("p95 %.3g over the last %d %s", g.MeasuredP95, g.MeasuredDAGs, dags)
	}
	switch {
	case g.TargetP95 > 0:
		return fmt.Sprintf("; target p95 %g, %s", g.TargetP95, measured)
	case g.MeasuredDAGs > 0:
		return "; " + measured
	}
	return ""
}

// preemptLine is a group's preemption counters for `ebb dag status`, ""
// while nothing of it was preempted, by the cluster or by the AM itself
// to break a slow-start stall.
func preemptLine(g amclient.Group) string {
	line := ""
	if g.PreemptWarned+g.PreemptGivenBack+g.PreemptLost > 0 {
		line = fmt.Sprintf("; preemption: %d containers warned, %d given back, %d lost", g.PreemptWarned, g.PreemptGivenBack, g.PreemptLost)
	}
	if g.Evicted > 0 {
		line += fmt.Sprintf("; %d containers evicted", g.Evicted)
	}
	if g.SlowStartKilled > 0 {
		line += fmt.Sprintf("; slow-start stall: %d gathering consumers killed", g.SlowStartKilled)
	}
	return line
}
