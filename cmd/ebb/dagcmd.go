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
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/proto/ebbpb"
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

// dial connects to the AM the flags name; close the connection with the
// returned function.
func (f *amFlags) dial(ctx context.Context, errOut io.Writer) (ebbpb.ClientClient, func(), error) {
	addr, secret := f.addr, os.Getenv("EBB_SECRET")
	if f.session != "" {
		b, err := os.ReadFile(f.session)
		if err != nil {
			return nil, nil, err
		}
		var s localSession
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.session, err)
		}
		addr = s.Address
		if f.secretFile == "" {
			f.secretFile = s.SecretFile
		}
	}
	// No AM named at all: the user's running ebb session on YARN (found
	// through the ResourceManager, or started).
	if f.app != "" || (f.addr == "" && f.session == "" && f.resolve != nil) {
		if f.resolve == nil {
			return nil, nil, errors.New("--app needs YARN support, which this build lacks")
		}
		found, err := f.resolve.findAM(ctx, f.app, f.mayStart, f.cf, errOut)
		if err != nil {
			return nil, nil, err
		}
		addr, secret, f.found = found.Addr, found.Secret, found
	}
	if f.secretFile != "" {
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return nil, nil, err
		}
		secret = strings.TrimSpace(string(b))
	}
	if addr == "" {
		return nil, nil, errors.New("no AM given: use --am ADDRESS, --session FILE or --app APPLICATION_ID")
	}
	if secret == "" {
		return nil, nil, errors.New("no application secret: use --secret-file or set EBB_SECRET")
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(am.BearerCreds(secret)))
	if err != nil {
		return nil, nil, err
	}
	// The command has its answers by the time it closes the connection.
	return ebbpb.NewClientClient(conn), func() { _ = conn.Close() }, nil
}

func rpcErr(err error) error {
	if s, ok := status.FromError(err); ok {
		return errors.New(s.Message())
	}
	return err
}

// newDAGCmd is `ebb dag`; resolve finds AMs on YARN.
func newDAGCmd(resolve amResolver) *cobra.Command {
	cmd := &cobra.Command{Use: "dag", Short: "Submit, follow and kill DAGs on a running AM"}
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
			c, closeFn, err := f.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeFn()
			base, _ := filepath.Abs(filepath.Dir(args[0]))
			resp, err := c.SubmitDAG(cmd.Context(), &ebbpb.SubmitDAGRequest{Spec: spec, SpecName: args[0], BaseDir: base, Output: output,
				Overwrite: overwrite, Client: "ebb dag submit"})
			if err != nil {
				return rpcErr(err)
			}
			out := &printer{w: cmd.OutOrStdout()}
			out.println(resp.DagId)
			if !wait {
				return out.done(nil)
			}
			return out.done(waitDAG(cmd.Context(), out, c, resp.DagId, f.follower(cmd.ErrOrStderr())))
		},
	}
	f.register(submit)
	// A session this command starts is configured like `ebb submit`'s
	// (e.g. --set mr3.am.resource.memory.mb=1024 on a small cluster).
	f.cf.register(submit)
	submit.Flags().BoolVar(&wait, "wait", false, "follow the DAG to its end; exit non-zero unless it succeeds")
	submit.Flags().StringVar(&output, "output", "", "override the spec's output")
	submit.Flags().BoolVar(&overwrite, "overwrite", false, "replace an output that already holds results, once the DAG succeeds")

	sf := amFlags{resolve: resolve}
	var asJSON bool
	var uiURL string
	var page am.DAGPage
	statusCmd := &cobra.Command{
		Use:   "status [DAG_ID]",
		Short: "Show one DAG, or every DAG and the ContainerGroups",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return statusJSON(cmd.Context(), cmd.OutOrStdout(), sf, uiURL, args)
			}
			c, closeFn, err := sf.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer func() { closeFn() }() // the one open when the command ends
			out := &printer{w: cmd.OutOrStdout()}
			// An AM that died since it was found: ask the attempt that
			// took over (once; redial waits for it).
			retry := func(err error) bool {
				redial := sf.follower(cmd.ErrOrStderr())
				if redial == nil || status.Code(err) != codes.Unavailable {
					return false
				}
				nc, ncClose, attempt, rerr := redial(cmd.Context())
				if rerr != nil {
					return false
				}
				closeFn() // the dead AM's
				c, closeFn = nc, ncClose
				(&printer{w: cmd.ErrOrStderr()}).printf("AM attempt %d took over\n", attempt)
				return true
			}
			if len(args) == 1 {
				r, err := c.DAGStatus(cmd.Context(), &ebbpb.DAGStatusRequest{DagId: args[0]})
				if err != nil && retry(err) {
					r, err = c.DAGStatus(cmd.Context(), &ebbpb.DAGStatusRequest{DagId: args[0]})
				}
				if err != nil {
					return rpcErr(err)
				}
				printDAG(out, r.Dag)
				return out.done(nil)
			}
			req := &ebbpb.ListDAGsRequest{State: page.State, Limit: int32(page.Limit), Before: page.Before}
			l, err := c.ListDAGs(cmd.Context(), req)
			if err != nil && retry(err) {
				l, err = c.ListDAGs(cmd.Context(), req)
			}
			if err != nil {
				return rpcErr(err)
			}
			for _, d := range l.Dags {
				printDAG(out, d)
			}
			if l.NextBefore != "" {
				out.printf("%d of %d DAGs shown, newest first; the next %d: --before %s (--limit 0: all; --state S: only those in S)\n",
					len(l.Dags), l.Total, page.Limit, l.NextBefore)
			}
			cs, err := c.ClusterStatus(cmd.Context(), &ebbpb.ClusterStatusRequest{})
			if err != nil {
				return rpcErr(err)
			}
			for _, g := range cs.Groups {
				out.printf("group %s: %s, usage %.0f%%, %d workers (+%d pending) on %d nodes, %d queued, %d running\n",
					g.Name, g.State, g.UsagePercent, g.Workers, g.PendingWorkers, g.Nodes, g.QueuedAttempts, g.RunningAttempts)
			}
			trs := cs.Transitions
			if len(trs) > 10 {
				trs = trs[len(trs)-10:]
			}
			for _, tr := range trs {
				out.printf("  %s group %s: %s → %s: %s\n", time.UnixMilli(tr.UnixMs).Format("15:04:05"), tr.Group, tr.From, tr.To, tr.Reason)
			}
			return out.done(nil)
		},
	}
	sf.register(statusCmd)
	statusCmd.Flags().BoolVar(&asJSON, "json", false, "print the AM's JSON API answer (api/v1/dags[/ID]), as the UI reads it")
	statusCmd.Flags().StringVar(&uiURL, "url", "", "with --json: the AM's tracking URL (default: the --session file's status URL)")
	statusCmd.Flags().StringVar(&page.State, "state", "", "list only DAGs in this state: SUBMITTED, RUNNING, SUCCEEDED, FAILED or KILLED")
	statusCmd.Flags().IntVar(&page.Limit, "limit", 20, "list at most this many DAGs, the newest first (0: all)")
	statusCmd.Flags().StringVar(&page.Before, "before", "", "list the DAGs submitted before this DAG id (the next page)")

	kf := amFlags{resolve: resolve}
	kill := &cobra.Command{
		Use:   "kill DAG_ID",
		Short: "Kill a DAG",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, closeFn, err := kf.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeFn()
			if _, err := c.KillDAG(cmd.Context(), &ebbpb.KillDAGRequest{DagId: args[0], Reason: "killed by ebb dag kill"}); err != nil {
				return rpcErr(err)
			}
			return nil
		},
	}
	kf.register(kill)
	cmd.AddCommand(submit, statusCmd, kill)
	return cmd
}

func printDAG(out *printer, d *ebbpb.DAGStatus) {
	out.printf("%s %s %s: %d/%d tasks, %d running, %d failed attempts", d.DagId, d.Name, d.State,
		d.SucceededTasks, d.TotalTasks, d.RunningAttempts, d.FailedAttempts)
	if d.Recovered {
		out.printf(", recovered")
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
}

// redialer finds the AM again after its connection dropped (nil: the AM
// was named directly, there is nowhere else to look).
type redialer func(ctx context.Context) (ebbpb.ClientClient, func(), int32, error)

// follower re-resolves the YARN application the flags found, waiting for
// an attempt other than the one that went away.
func (f *amFlags) follower(errOut io.Writer) redialer {
	if f.found.App == "" || f.resolve == nil {
		return nil
	}
	return func(ctx context.Context) (ebbpb.ClientClient, func(), int32, error) {
		for {
			found, err := f.resolve.findAM(ctx, f.found.App, false, f.cf, errOut)
			if err != nil {
				return nil, nil, 0, err // the application ended (its status is in err), or ctx did
			}
			if found.Attempt != f.found.Attempt {
				f.found = found
				conn, err := yarnclient.DialAM(found.Addr, found.Secret)
				if err != nil {
					return nil, nil, 0, err
				}
				return ebbpb.NewClientClient(conn), func() { _ = conn.Close() }, found.Attempt, nil
			}
			select {
			case <-ctx.Done():
				return nil, nil, 0, ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}

// waitDAG polls a remote DAG until it ends. When the AM goes away and
// redial finds the attempt that took over, it says so and goes on there.
func waitDAG(ctx context.Context, out *printer, c ebbpb.ClientClient, id string, redial redialer) error {
	last := ""
	var takeover int32
	for {
		r, err := c.DAGStatus(ctx, &ebbpb.DAGStatusRequest{DagId: id})
		if err != nil {
			if redial == nil || status.Code(err) != codes.Unavailable {
				return rpcErr(err)
			}
			nc, closeFn, attempt, rerr := redial(ctx)
			if rerr != nil {
				return &exitError{code: 2, err: fmt.Errorf("the AM went away (%v) and no attempt took over: %w", rpcErr(err), rerr)}
			}
			defer closeFn()
			c, takeover = nc, attempt
			continue
		}
		d := r.Dag
		if takeover != 0 {
			out.println(yarnclient.TakeoverLine(takeover, []*ebbpb.DAGStatus{d}))
			takeover = 0
		}
		line := fmt.Sprintf("%s %s: %d/%d tasks", d.DagId, d.State, d.SucceededTasks, d.TotalTasks)
		if line != last {
			out.println(line)
			last = line
		}
		switch d.State {
		case "SUCCEEDED":
			return nil
		case "FAILED", "KILLED":
			return &exitError{code: 2, err: fmt.Errorf("DAG %s %s: %s", id, d.State, d.Diagnostics)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
