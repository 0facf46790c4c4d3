package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/streaming"
)

func newStreamingCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "streaming [--dry-run] [genericOptions] [streamingOptions]",
		Short: "Run a Hadoop Streaming job: the arguments of `hadoop jar hadoop-streaming.jar`, unchanged",
		Long: `streaming takes the arguments that follow ` + "`hadoop jar hadoop-streaming.jar`" + ` unchanged
(generic options such as -D first, then -input, -output, -mapper, -reducer, ...) and runs the
job as a DAG where Hadoop would: on the local world when mapreduce.framework.name is local
(Hadoop's default), on YARN (HADOOP_CONF_DIR) when it is yarn. --dry-run prints the DAG instead.
Exit codes are Streaming's: 0 success, 1 bad arguments or a failed job, 5 an existing output or
a missing input. docs/streaming.md lists the options and -D keys taken.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			err := runStreaming(ctx, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
			var se *streaming.Error
			if errors.As(err, &se) {
				// Streaming's own words and code, not ebb's.
				_, _ = fmt.Fprintln(cmd.ErrOrStderr(), "ebb streaming:", se.Msg)
				if se.Code != streaming.ExitOK {
					_, _ = fmt.Fprintln(cmd.ErrOrStderr(), "Streaming Command Failed!")
				}
				return &exitError{code: se.Code, err: errQuiet}
			}
			return err
		},
	}
}

// errQuiet is an error already reported, which main does not print again.
var errQuiet = errors.New("streaming command failed")

// streamingFlags are ebb's own flags, taken out of the Hadoop arguments
// wherever they are (Hadoop has none of these names).
type streamingFlags struct {
	dryRun, verbose bool
}

func takeStreamingFlags(args []string) ([]string, streamingFlags) {
	var f streamingFlags
	var rest []string
	for _, a := range args {
		switch a {
		case "--dry-run":
			f.dryRun = true
		case "--ebb-verbose":
			f.verbose = true
		default:
			rest = append(rest, a)
		}
	}
	return rest, f
}

func runStreaming(ctx context.Context, args []string, out, errOut io.Writer) error {
	args, flags := takeStreamingFlags(args)
	if len(args) == 0 {
		_, _ = io.WriteString(out, streaming.Usage)
		return &streaming.Error{Code: streaming.ExitFailed, Msg: "No Arguments Given!"}
	}
	job, err := streaming.Parse(args, readHadoopXML)
	if err != nil {
		return err
	}
	if job.Help {
		_, err := io.WriteString(out, streaming.Usage)
		return err
	}
	if _, ok := job.Conf["mapreduce.framework.name"]; !ok {
		job.Conf["mapreduce.framework.name"] = frameworkOf(job)
	}
	s, err := streaming.Resolve(job.Conf)
	if err != nil {
		return err
	}
	if s.Framework == "yarn" {
		c, err := (&confFlags{}).load(newLogger("warn", "", ""))
		if err != nil {
			return err
		}
		return runStreamingYARN(ctx, c, job, s, flags, out, errOut)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	local := func(p string) string {
		p = strings.TrimPrefix(strings.TrimPrefix(p, "file://"), "file:")
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	inputs := make([]string, len(job.Inputs))
	for i, in := range job.Inputs {
		inputs[i] = local(in)
	}
	plan, err := streaming.MakePlan(streaming.LocalFS{}, inputs, local(job.Output), s)
	if err != nil {
		return err
	}
	spec, err := streaming.Build(job, s, plan, streaming.BuildOptions{Cwd: cwd, Local: true})
	if err != nil {
		return err
	}
	data, err := specYAML(spec)
	if err != nil {
		return err
	}
	if flags.dryRun || job.Verbose {
		_, _ = out.Write(data)
		if flags.dryRun {
			return nil
		}
	}
	return runStreamingLocal(ctx, data, plan.Output, errOut, flags.verbose)
}

// specYAML is the DAG as `ebb local run` and `ebb submit` read it.
func specYAML(spec *dag.Spec) ([]byte, error) { return yaml.Marshal(spec) }

// runStreamingLocal runs the DAG on the local world as Hadoop's local
// runner would run the job: one attempt per task (it retries nothing).
func runStreamingLocal(ctx context.Context, spec []byte, output string, errOut io.Writer, verbose bool) error {
	c, err := (&confFlags{}).load(newLogger("warn", "", ""))
	if err != nil {
		return err
	}
	if err := c.Set("mr3.am.task.max.failed.attempts", "1"); err != nil {
		return err
	}
	p := &printer{w: errOut}
	base, _ := os.Getwd()
	st, err := runLocalSpec(ctx, p, c, spec, base, localRunOptions{specPath: "streaming"}, verbose, "ebb streaming")
	if err != nil {
		return err
	}
	if st.State != core.DAGSucceeded {
		p.printf("DAG %s (%s) %s: %s\n", st.ID, st.Name, st.State, st.Diagnostics)
		// Hadoop leaves the output directory it made, empty.
		_ = os.MkdirAll(output, 0o755)
		return &streaming.Error{Code: streaming.ExitFailed, Msg: "Job not successful!"}
	}
	p.printf("DAG %s (%s) SUCCEEDED in %s; output: %s\n", st.ID, st.Name, st.Finish.Sub(st.Submit).Round(time.Millisecond), st.Output)
	printCounters(p, amCounters(st.Counters))
	// The commit marker lets a later AM attempt finish a commit; this
	// job's AM is gone, and Hadoop's output holds only _SUCCESS beside
	// the parts.
	markers, _ := filepath.Glob(filepath.Join(output, "_ebb-commit-*"))
	for _, m := range markers {
		_ = os.Remove(m) // a marker left behind is harmless
	}
	return p.done(nil)
}

// frameworkOf is where Hadoop would run the job without a -D saying:
// -jt local, else mapred-site.xml in HADOOP_CONF_DIR, else local.
func frameworkOf(j *streaming.Job) string {
	if j.JobTracker == "local" {
		return "local"
	}
	if dir := os.Getenv("HADOOP_CONF_DIR"); dir != "" {
		if props, err := readHadoopXML(filepath.Join(dir, "mapred-site.xml")); err == nil {
			if v := props["mapreduce.framework.name"]; v != "" {
				return v
			}
		}
	}
	return "local"
}

// readHadoopXML reads a Hadoop configuration file's properties (-conf).
func readHadoopXML(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	props, _, err := conf.ParseXML(path, data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(props))
	for _, p := range props {
		out[p.Name] = p.Value
	}
	return out, nil
}

// amCounters is the core's counters as the client's.
func amCounters(cs []core.Counter) []amclient.Counter {
	out := make([]amclient.Counter, 0, len(cs))
	for _, c := range cs {
		out = append(out, amclient.Counter{Group: c.Group, Name: c.Name, Value: c.Value})
	}
	return out
}
