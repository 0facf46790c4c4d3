package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

type submitOptions struct {
	dagPath string
	detach  bool
	queue   string
	name    string
	output  string
	// session starts the AM as a session (mr3.am.session.mode=true,
	// tagged so `ebb dag submit` finds it).
	session bool
}

func newSubmitCmd() *cobra.Command {
	var cf confFlags
	var o submitOptions
	cmd := &cobra.Command{
		Use:   "submit [DAG.yaml]",
		Short: "Start an ebb AM on YARN (from HADOOP_CONF_DIR) and run a DAG on it",
		Long: `submit uploads the ebb binary, the effective configuration and the DAG to a staging
directory in HDFS (/user/<user>/.ebb/staging/<application id>), submits an application of type
EBB whose AM is ` + "`ebb am`" + `, prints its id and tracking URL, and follows the DAG to its end
(unless --detach). It exits non-zero when the application does not succeed. DAG inputs and
outputs should be hdfs:// URLs: the AM and its workers run on the cluster.

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
			if len(args) == 1 {
				o.dagPath = args[0]
			} else {
				o.session = true
			}
			return runSubmit(ctx, c, o, cmd.OutOrStdout())
		},
	}
	cf.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&o.detach, "detach", false, "return once the application is submitted")
	f.StringVar(&o.queue, "queue", "", "the YARN queue (default: the cluster's default)")
	f.StringVar(&o.name, "name", "", "the application name (default: the DAG's name, or ebb-session)")
	f.StringVar(&o.output, "output", "", "override the DAG's output (an hdfs:// URL)")
	return cmd
}

func runSubmit(ctx context.Context, c *conf.Config, o submitOptions, out io.Writer) error {
	if _, ok := c.Raw("yarn.resourcemanager.address"); !ok && os.Getenv("HADOOP_CONF_DIR") == "" {
		return fmt.Errorf("no ResourceManager configured: set HADOOP_CONF_DIR to the cluster's configuration directory (yarn-site.xml, core-site.xml)")
	}
	t0 := time.Now()
	rm := yarn.NewClient(c.RMAddress(), yarnUser())
	defer rm.Close()
	id, err := submitApp(ctx, c, rm, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "submitted application %s (type %s) in %s\n", id, appType, time.Since(t0).Round(time.Millisecond))
	if o.detach {
		if rep, err := rm.Report(ctx, id); err == nil {
			fmt.Fprintf(out, "tracking URL: %s\n", rep.TrackingURL)
		}
		return nil
	}
	return followApp(ctx, c, rm, id, t0, out)
}

// submitApp stages the files and submits the application.
func submitApp(ctx context.Context, c *conf.Config, rm *yarn.Client, o submitOptions) (yarn.AppID, error) {
	user := yarnUser()
	amMB, amCores := c.Int64("mr3.am.resource.memory.mb"), c.Int("mr3.am.resource.cpu.cores")
	var spec []byte
	name := o.name
	if o.dagPath != "" {
		var err error
		if spec, err = os.ReadFile(o.dagPath); err != nil {
			return yarn.AppID{}, err
		}
		d, err := dag.Parse(o.dagPath, spec)
		if err != nil {
			return yarn.AppID{}, err
		}
		if name == "" {
			name = d.Name
		}
		for _, w := range clusterPathWarnings(d, o.output) {
			fmt.Fprintln(os.Stderr, "ebb submit: warning:", w)
		}
	}
	if o.session {
		if err := c.Set("mr3.am.session.mode", "true"); err != nil {
			return yarn.AppID{}, err
		}
	}
	if name == "" {
		name = "ebb-session"
	}
	id, max, err := rm.NewApp(ctx)
	if err != nil {
		return id, fmt.Errorf("asking the ResourceManager at %s for an application id: %w", c.RMAddress(), err)
	}
	if amMB > max.MemoryMB {
		return id, c.ErrorFor("mr3.am.resource.memory.mb", fmt.Sprintf("at most the cluster's largest container, yarn.scheduler.maximum-allocation-mb=%d", max.MemoryMB))
	}
	fs, err := hdfsfs.Dial(c.DefaultFS(), user)
	if err != nil {
		return id, err
	}
	defer fs.Close()
	staging := stagingDir(user, id)
	if err := fs.MkdirPrivate(staging); err != nil {
		return id, err
	}
	exe, err := os.Executable()
	if err != nil {
		return id, err
	}
	res := map[string]yarn.LocalResource{}
	stage := func(name string, st hdfsfs.FileStamp, err error) error {
		if err != nil {
			return fmt.Errorf("staging %s: %w", name, err)
		}
		res[name] = yarn.LocalResource{URL: st.URL, Size: st.Size, Timestamp: st.ModTime}
		return nil
	}
	st, err := fs.Upload(exe, staging+"/"+stagedBinary, 0o700)
	if err := stage(stagedBinary, st, err); err != nil {
		return id, err
	}
	var xml bytes.Buffer
	if err := conf.WriteXML(&xml, c.Effective()); err != nil {
		return id, err
	}
	st, err = fs.WriteFile(staging+"/"+stagedConf, xml.Bytes(), 0o600)
	if err := stage(stagedConf, st, err); err != nil {
		return id, err
	}
	// exec: the AM container's process is ebb itself, so a SIGTERM (from
	// the NM, or an operator) reaches the AM, which unregisters, rather
	// than a bash whose exit would end the attempt first.
	cmd := []string{"exec", "./ebb", "am", "--conf", stagedConf}
	if spec != nil {
		st, err = fs.WriteFile(staging+"/"+stagedDAG, spec, 0o600)
		if err := stage(stagedDAG, st, err); err != nil {
			return id, err
		}
		cmd = append(cmd, "--dag", stagedDAG)
	}
	if o.output != "" {
		cmd = append(cmd, "--output", shellWord(o.output))
	}
	cmd = append(cmd, "1><LOG_DIR>/stdout", "2><LOG_DIR>/stderr")
	app := yarn.AppSpec{
		ID: id, Name: name, Queue: o.queue, Type: appType,
		Resource:    yarn.Resource{MemoryMB: amMB, VCores: int32(amCores)},
		MaxAttempts: c.Int("mr3.am.max.app.attempts"),
		AM: yarn.Launch{Resources: res, Command: []string{strings.Join(cmd, " ")},
			Env: map[string]string{"HADOOP_USER_NAME": user, "EBB_STAGING": fs.URL(staging)}},
	}
	if o.session {
		app.Tags = []string{sessionTag}
	}
	if err := rm.Submit(ctx, app); err != nil {
		fs.RemoveAll(staging)
		return id, fmt.Errorf("submitting %s: %w", id, err)
	}
	return id, nil
}

// clusterPathWarnings names the DAG's inputs and output that are not
// hdfs:// URLs: the AM and its workers run on the cluster's nodes, where a
// path on this machine means nothing (a relative one least of all).
func clusterPathWarnings(d *dag.Spec, output string) []string {
	var out []string
	for _, v := range d.Vertices {
		for _, in := range v.Inputs {
			if !strings.HasPrefix(in, "hdfs://") {
				out = append(out, fmt.Sprintf("vertex %s input %q is not an hdfs:// URL: the AM lists it on a cluster node", v.Name, in))
			}
		}
	}
	if output == "" {
		output = d.Output
	}
	if output != "" && !strings.HasPrefix(output, "hdfs://") {
		out = append(out, fmt.Sprintf("output %q is not an hdfs:// URL: workers write it on the cluster nodes they run on", output))
	}
	return out
}

func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// followApp waits for the AM, shows the DAG's progress through the AM's
// client API and waits for the application's end.
func followApp(ctx context.Context, c *conf.Config, rm *yarn.Client, id yarn.AppID, t0 time.Time, out io.Writer) error {
	var client ebbpb.ClientClient
	var closeFn func()
	defer func() {
		if closeFn != nil {
			closeFn()
		}
	}()
	lastState, lastLine := yarn.AppState(0), ""
	var firstRunning bool
	var rep yarn.AppReport
	for {
		var err error
		rep, err = rm.Report(ctx, id)
		if err != nil {
			return fmt.Errorf("report of %s: %w", id, err)
		}
		if rep.State != lastState {
			fmt.Fprintf(out, "%s %s after %s (tracking URL %s)\n", id, rep.State, time.Since(t0).Round(time.Millisecond), rep.TrackingURL)
			if rep.State == yarn.StateRunning && rep.AMURL != "" && rep.AMURL != rep.TrackingURL {
				fmt.Fprintf(out, "AM at %s, status page %s\n", amAddress(rep), rep.AMURL)
			}
			lastState = rep.State
		}
		if rep.State.Done() {
			break
		}
		if rep.State == yarn.StateRunning && client == nil && rep.RPCPort > 0 {
			if secret, err := readSecret(ctx, c, rep, 0); err == nil {
				conn, err := grpc.NewClient(amAddress(rep), grpc.WithTransportCredentials(insecure.NewCredentials()),
					grpc.WithPerRPCCredentials(am.BearerCreds(secret)))
				if err == nil {
					client, closeFn = ebbpb.NewClientClient(conn), func() { conn.Close() }
				}
			}
		}
		if client != nil {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			l, err := client.ListDAGs(cctx, &ebbpb.ListDAGsRequest{})
			cancel()
			if err == nil {
				for _, d := range l.Dags {
					if d.RunningAttempts > 0 && !firstRunning {
						firstRunning = true
						fmt.Fprintf(out, "first attempt running after %s\n", time.Since(t0).Round(time.Millisecond))
					}
					line := fmt.Sprintf("%s %s %s: %d/%d tasks, %d running", d.DagId, d.Name, d.State, d.SucceededTasks, d.TotalTasks, d.RunningAttempts)
					if d.Diagnostics != "" {
						line += ": " + d.Diagnostics
					}
					if line != lastLine {
						fmt.Fprintln(out, line)
						lastLine = line
					}
				}
			}
		}
		poll := 250 * time.Millisecond
		if rep.State != yarn.StateRunning {
			poll = 100 * time.Millisecond // see the AM register promptly
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
	// The AM removes its staging directory when it unregisters; an AM
	// that died or was killed cannot, so the client cleans up too.
	if err := removeStaging(c, rep); err != nil {
		fmt.Fprintf(out, "removing the staging directory: %v\n", err)
	}
	fmt.Fprintf(out, "application %s %s, final status %s after %s: %s\n", id, rep.State, rep.Final, time.Since(t0).Round(time.Millisecond), rep.Diagnostics)
	if rep.Final != yarn.Succeeded {
		return &exitError{code: 2, err: fmt.Errorf("application %s %s (%s): %s", id, rep.State, rep.Final, rep.Diagnostics)}
	}
	return nil
}

// startSession submits a session AM and waits until it is RUNNING.
func startSession(ctx context.Context, c *conf.Config, out io.Writer) (yarn.AppReport, error) {
	rm := yarn.NewClient(c.RMAddress(), yarnUser())
	defer rm.Close()
	id, err := submitApp(ctx, c, rm, submitOptions{session: true, detach: true})
	if err != nil {
		return yarn.AppReport{}, err
	}
	fmt.Fprintf(out, "started ebb session %s\n", id)
	return waitRunning(ctx, rm, id, 2*time.Minute)
}
