package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/amhost"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
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

// localEnv reads what a local AM takes from the process's environment.
func localEnv() (amhost.LocalEnv, error) {
	if v := os.Getenv("EBB_EXECUTABLE"); v != "" {
		return amhost.LocalEnv{Executable: v}, nil // tests run the AM in-process with a built ebb binary
	}
	exe, err := os.Executable()
	return amhost.LocalEnv{Executable: exe}, err
}

// defaultLocalOutput is where `ebb local run` puts the results of a DAG
// that names no output: under the current directory, where a newcomer
// looks, not in a temporary directory.
func defaultLocalOutput(dagName string) string { return filepath.Join("ebb-output", dagName) }

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
	base, _ := filepath.Abs(filepath.Dir(o.specPath))
	p := &printer{w: out}
	st, err := runLocalSpec(ctx, p, c, spec, base, o, verbose, "ebb local run")
	if err != nil {
		return err
	}
	if st.State != core.DAGSucceeded {
		return &exitError{code: 2, err: fmt.Errorf("DAG %s (%s) %s: %s", st.ID, st.Name, st.State, st.Diagnostics)}
	}
	p.printf("DAG %s (%s) SUCCEEDED in %s; output: %s\n", st.ID, st.Name, st.Finish.Sub(st.Submit).Round(time.Millisecond), st.Output)
	return p.done(nil)
}

// runLocalSpec runs one DAG (its spec's bytes; relative paths in it are
// relative to base) on a local AM started for it, printing its progress,
// and returns how it ended.
func runLocalSpec(ctx context.Context, p *printer, c *conf.Config, spec []byte, base string, o localRunOptions, verbose bool, client string) (core.DAGStatus, error) {
	var none core.DAGStatus
	// A bad spec fails before anything starts.
	parsed, err := dag.Parse(o.specPath, spec)
	if err != nil {
		return none, err
	}
	output := o.output
	if output == "" && parsed.Output == "" {
		output = defaultLocalOutput(parsed.Name)
	}
	if output != "" && !strings.Contains(output, "://") {
		output, _ = filepath.Abs(output)
	}
	// A bad configuration is reported as such, before the output is
	// looked at: what is wrong first is what the user hears.
	if _, err := amconf.CoreOptions(c, "local_"); err != nil {
		return none, err
	}
	if err := amhost.CheckLocalOutput(c, parsed, base, output, o.overwrite); err != nil {
		return none, fmt.Errorf("%s: %w", o.specPath, err)
	}
	root, err := amhost.LocalRoot(c)
	if err != nil {
		return none, err
	}
	log := newQuietLogger(filepath.Join(root, "logs"), "am.log", logRoll(c), verbose)
	env, err := localEnv()
	if err != nil {
		return none, err
	}
	a, _, err := amhost.StartLocal(ctx, c, env, log, root)
	if err != nil {
		return none, err
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
	p.printf("ebb local AM at %s (status page http://%s/, logs in %s)\n", a.Addr(), a.StatusAddr(), filepath.Join(root, "logs"))
	id, err := a.Submit(ctx, am.SubmitRequest{Spec: spec, SpecName: o.specPath, BaseDir: base, Output: output,
		Overwrite: o.overwrite, Client: client})
	if err != nil {
		return none, err
	}
	return follow(ctx, p, a, id)
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
