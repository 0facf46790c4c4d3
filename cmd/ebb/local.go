package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/local"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
	"github.com/ebb-am/ebb/yarnclient"
)

func newLocalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "local",
		Short: "Run DAGs on the embedded local cluster (no Hadoop needed)",
	}
	cmd.AddCommand(newLocalRunCmd())
	return cmd
}

func newLocalRunCmd() *cobra.Command {
	var cf confFlags
	var o localRunOptions
	var verbose bool
	cmd := &cobra.Command{
		Use:   "run DAG.yaml",
		Short: "Start an AM with the local world, run one DAG, print where its outputs are",
		Long: `run starts an AM with the local world in this process, runs the DAG and prints where its
results are: --output, else the spec's output, else ./ebb-output/<dag name>/. An output that already
holds results is refused unless --overwrite (or overwrite: true in the spec) says to replace them;
they are replaced only when the DAG succeeds.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			o.specPath = args[0]
			return runLocal(ctx, cmd.OutOrStdout(), cf, o, verbose)
		},
	}
	cf.register(cmd)
	cmd.Flags().StringVar(&o.output, "output", "", "where to commit the DAG's results (overrides the spec's output; default ./ebb-output/<dag name>)")
	cmd.Flags().BoolVar(&o.overwrite, "overwrite", false, "replace an output that already holds results, once the DAG succeeds")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print the AM's log on stderr too")
	return cmd
}

// localRunOptions say which DAG `ebb local run` runs and where its
// results go.
type localRunOptions struct {
	specPath, output string
	overwrite        bool
}

// defaultLocalOutput is where `ebb local run` puts the results of a DAG
// that names no output: under the current directory, where a newcomer
// looks, not in a temporary directory.
func defaultLocalOutput(dagName string) string { return filepath.Join("ebb-output", dagName) }

// localSession is written to <root>/am.json so `ebb dag` can reach a
// running local AM.
type localSession struct {
	Address    string `json:"address"`
	SecretFile string `json:"secretFile"`
	StatusURL  string `json:"statusURL"`
}

// startLocal starts an AM with the local world on this machine.
func startLocal(ctx context.Context, c *conf.Config, log *logrus.Logger, root string) (*am.AM, *local.World, error) {
	secret, err := am.NewSecret()
	if err != nil {
		return nil, nil, err
	}
	core, err := coreOptions(c, "local_")
	if err != nil {
		return nil, nil, err
	}
	history, dagHistory := localHistory(c, root, log)
	events, err := openEventLog(c, "local_", func() (io.WriteCloser, error) {
		return os.OpenFile(filepath.Join(root, "events.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	})
	if err != nil {
		return nil, nil, err
	}
	a, err := am.New(am.Options{
		Core: core, Listen: "127.0.0.1:0", StatusListen: "127.0.0.1:0", Secret: secret, Log: log,
		Tick: 100 * time.Millisecond, WorkerHeartbeat: c.Duration("ebb.am.worker.heartbeat.interval.ms"),
		OutputRoot: filepath.Join(root, "output"), Committer: commit.New(newOutputFS(yarnclient.User()).resolve).AfterStep(am.CommitStepLog(log, "none", 1)), UI: localUIOptions(c, root), History: history, DAGHistory: dagHistory,
		EventLog: events,
	})
	if err != nil {
		if events != nil {
			_ = events.Close() // nothing worth keeping was recorded
		}
		return nil, nil, err
	}
	// A local virtual node is the largest container; nothing rounds asks up.
	a.SetAllocation(scheduler.AllocationLimits{MaxMB: c.Int64("ebb.local.node.memory.mb")})
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	if v := os.Getenv("EBB_EXECUTABLE"); v != "" {
		exe = v // tests run the AM in-process with a built ebb binary
	}
	alloc, err := packing.New(c.String("ebb.packing.scheme"), packingOptions(c))
	if err != nil {
		return nil, nil, err
	}
	w, err := local.New(local.Options{
		Nodes: c.Int("ebb.local.nodes"), MaxNodes: c.Int("ebb.local.max.nodes"), NodeMB: c.Int64("ebb.local.node.memory.mb"),
		NodeVCores: c.Int("ebb.local.node.vcores"), ProvisionDelay: c.Duration("ebb.local.provision.delay.ms"),
		IdleNodeTime: c.Duration("ebb.local.node.idle.timeout.ms"), Executable: exe, AMAddress: a.Addr(), Secret: secret,
		Root: root, LogRollKB: c.Int64("ebb.log.roll.size.kb"), LogRollCount: c.Int("ebb.log.roll.count"), Allocator: alloc, Log: log, Events: a.Loop(),
	}, time.Now())
	if err != nil {
		return nil, nil, err
	}
	a.SetWorld(w)
	secretFile := filepath.Join(root, "secret")
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		return nil, nil, err
	}
	sess, _ := json.MarshalIndent(localSession{Address: a.Addr(), SecretFile: secretFile, StatusURL: "http://" + a.StatusAddr() + "/"}, "", "  ")
	if err := os.WriteFile(filepath.Join(root, "am.json"), sess, 0o600); err != nil {
		return nil, nil, err
	}
	return a, w, nil
}

func localRoot(c *conf.Config) (string, error) {
	if d := c.String("ebb.local.dir"); d != "" {
		return d, os.MkdirAll(d, 0o755)
	}
	return os.MkdirTemp("", "ebb-local-")
}

func runLocal(ctx context.Context, out io.Writer, cf confFlags, o localRunOptions, verbose bool) error {
	boot := newLogger("warn", "", "")
	c, err := cf.load(boot)
	if err != nil {
		return err
	}
	spec, err := os.ReadFile(o.specPath)
	if err != nil {
		return err
	}
	// A bad spec fails before anything starts.
	parsed, err := dag.Parse(o.specPath, spec)
	if err != nil {
		return err
	}
	base, _ := filepath.Abs(filepath.Dir(o.specPath))
	output := o.output
	if output == "" && parsed.Output == "" {
		output = defaultLocalOutput(parsed.Name)
	}
	if output != "" {
		output, _ = filepath.Abs(output)
	}
	// A bad configuration is reported as such, before the output is
	// looked at: what is wrong first is what the user hears.
	if _, err := coreOptions(c, "local_"); err != nil {
		return err
	}
	if err := checkLocalOutput(parsed, base, output, o.overwrite); err != nil {
		return fmt.Errorf("%s: %w", o.specPath, err)
	}
	root, err := localRoot(c)
	if err != nil {
		return err
	}
	log := newQuietLogger(filepath.Join(root, "logs"), "am.log", logRoll(c), verbose)
	a, _, err := startLocal(ctx, c, log, root)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			log.Warnf("ebb local: %v", err)
		}
	}()
	p := &printer{w: out}
	p.printf("ebb local AM at %s (status page http://%s/, logs in %s)\n", a.Addr(), a.StatusAddr(), filepath.Join(root, "logs"))
	id, err := a.Submit(ctx, am.SubmitRequest{Spec: spec, SpecName: o.specPath, BaseDir: base, Output: output,
		Overwrite: o.overwrite, Client: "ebb local run"})
	if err != nil {
		return err
	}
	st, err := follow(ctx, p, a, id)
	if err != nil {
		return err
	}
	if st.State != core.DAGSucceeded {
		return &exitError{code: 2, err: fmt.Errorf("DAG %s (%s) %s: %s", st.ID, st.Name, st.State, st.Diagnostics)}
	}
	p.printf("DAG %s (%s) SUCCEEDED in %s; output: %s\n", st.ID, st.Name, st.Finish.Sub(st.Submit).Round(time.Millisecond), st.Output)
	return p.done(nil)
}

// checkLocalOutput refuses an output that holds results (without
// overwrite) before an AM is started for nothing; the AM checks again when
// the DAG is submitted.
func checkLocalOutput(spec *dag.Spec, base, output string, overwrite bool) error {
	if output == "" {
		output = spec.Output
		if p, ok := commit.LocalPath(output); ok && !filepath.IsAbs(p) && !strings.HasPrefix(output, "file://") {
			output = filepath.Join(base, p)
		}
	}
	_, err := commit.New(newOutputFS(yarnclient.User()).resolve).Check(output, overwrite || spec.Overwrite)
	return err
}

// follow shows a DAG's progress until it ends: a bar on a terminal, a line
// per change otherwise.
func follow(ctx context.Context, out *printer, a *am.AM, id string) (core.DAGStatus, error) {
	tty := isTerminal(out.w)
	endCh := make(chan core.DAGStatus, 1)
	errCh := make(chan error, 1)
	go func() {
		s, err := a.WaitDAG(ctx, id)
		if err != nil {
			errCh <- err
			return
		}
		endCh <- s
	}()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	last := ""
	for {
		select {
		case s := <-endCh:
			if tty {
				out.println()
			}
			return s, nil
		case err := <-errCh:
			return core.DAGStatus{}, err
		case <-t.C:
			s, ok, err := a.Status(ctx, id)
			if err != nil || !ok {
				continue
			}
			line := progressLine(s, tty)
			if line != last {
				if tty {
					out.print("\r" + line)
				} else {
					out.println(line)
				}
				last = line
			}
		}
	}
}

func progressLine(s core.DAGStatus, bar bool) string {
	pct := 0
	if s.TotalTasks > 0 {
		pct = 100 * s.Succeeded / s.TotalTasks
	}
	if bar {
		const width = 30
		n := pct * width / 100
		b := make([]byte, width)
		for i := range b {
			if i < n {
				b[i] = '#'
			} else {
				b[i] = '.'
			}
		}
		return fmt.Sprintf("[%s] %3d%% %d/%d tasks, %d running  ", b, pct, s.Succeeded, s.TotalTasks, s.Running)
	}
	return fmt.Sprintf("%s %s: %d/%d tasks done, %d running", s.ID, s.State, s.Succeeded, s.TotalTasks, s.Running)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
