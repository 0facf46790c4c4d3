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
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// amResolver finds a YARN application's AM (see yarnAMs): app is an
// application id, or empty (or "session") for the user's running session,
// started (telling errOut) when there is none and start is true.
type amResolver interface {
	findAM(ctx context.Context, app string, start bool, errOut io.Writer) (addr, secret string, err error)
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
		a, s, err := f.resolve.findAM(ctx, f.app, f.mayStart, errOut)
		if err != nil {
			return nil, nil, err
		}
		addr, secret = a, s
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
	var wait bool
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
			resp, err := c.SubmitDAG(cmd.Context(), &ebbpb.SubmitDAGRequest{Spec: spec, SpecName: args[0], BaseDir: base, Output: output, Client: "ebb dag submit"})
			if err != nil {
				return rpcErr(err)
			}
			out := &printer{w: cmd.OutOrStdout()}
			out.println(resp.DagId)
			if !wait {
				return out.done(nil)
			}
			return out.done(waitDAG(cmd.Context(), out, c, resp.DagId))
		},
	}
	f.register(submit)
	submit.Flags().BoolVar(&wait, "wait", false, "follow the DAG to its end; exit non-zero unless it succeeds")
	submit.Flags().StringVar(&output, "output", "", "override the spec's output")

	sf := amFlags{resolve: resolve}
	statusCmd := &cobra.Command{
		Use:   "status [DAG_ID]",
		Short: "Show one DAG, or every DAG and the ContainerGroups",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, closeFn, err := sf.dial(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeFn()
			out := &printer{w: cmd.OutOrStdout()}
			if len(args) == 1 {
				r, err := c.DAGStatus(cmd.Context(), &ebbpb.DAGStatusRequest{DagId: args[0]})
				if err != nil {
					return rpcErr(err)
				}
				printDAG(out, r.Dag)
				return out.done(nil)
			}
			l, err := c.ListDAGs(cmd.Context(), &ebbpb.ListDAGsRequest{})
			if err != nil {
				return rpcErr(err)
			}
			for _, d := range l.Dags {
				printDAG(out, d)
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

// waitDAG polls a remote DAG until it ends.
func waitDAG(ctx context.Context, out *printer, c ebbpb.ClientClient, id string) error {
	last := ""
	for {
		r, err := c.DAGStatus(ctx, &ebbpb.DAGStatusRequest{DagId: id})
		if err != nil {
			return rpcErr(err)
		}
		d := r.Dag
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
