package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	root := newRoot()
	if err := root.Execute(); err != nil {
		if !errors.Is(err, errQuiet) {
			// One line, the page to read at its end: bad input stays a
			// one-line error (TestBadInputIsOneLineError).
			line := err.Error()
			if hint := docHint(err); hint != "" {
				line += " (see " + hint + ")"
			}
			fmt.Fprintln(os.Stderr, "ebb:", line)
		}
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "ebb",
		Short: "ebb: an elastic ApplicationMaster for Hadoop YARN",
		Long: `ebb runs DAGs of tasks on long-lived workers that it keeps the right size for the load:
it scales out when memory utilisation is high, packs work onto few nodes, and gives whole
nodes back when utilisation is low, without losing intermediate data a running DAG needs.

Run a DAG on the embedded local cluster (no Hadoop needed):
  ebb local run examples/wordcount.yaml

Documentation, by reader, is under docs/ in the repository: start with
docs/getting-started.md; operators read docs/operators.md; the DAG format is
docs/dags.md (also "ebb help dags"), every key docs/reference/config.md (also
"ebb help keys"), every command docs/reference/cli.md.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// ebb dag and ebb autoscale find AMs on YARN through the
	// ResourceManager (--app, or the user's session).
	yarnAMs := yarnAMs{}
	root.AddCommand(
		newLocalCmd(),
		newStreamingCmd(),
		newWorkerCmd(),
		newTaskCmd(),
		newDAGCmd(yarnAMs),
		newAutoscaleCmd(yarnAMs),
		newSubmitCmd(),
		newYarnAMCmd(),
		newKillCmd(),
		newCleanCmd(),
		newSimCmd(),
		newReplayCmd(),
		newHistoryCmd(),
		newUICmd(),
		newVersionCmd(),
	)
	root.AddCommand(newHelpTopics()...)
	// Shell completion (ebb completion bash|zsh|fish|powershell) is
	// cobra's; made here so the command reference lists it.
	root.InitDefaultCompletionCmd()
	return root
}

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ebb's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := &printer{w: cmd.OutOrStdout()}
			p.println("ebb", version())
			return p.done(nil)
		},
	}
}

// version is Version when the build set it, else the module version `go
// install github.com/ebb-am/ebb/cmd/ebb@v` recorded, else the VCS revision
// of a build from a checkout.
func version() string {
	if Version != "dev" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return "dev-" + s.Value
		}
	}
	return Version
}
