package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/amhost"
	"github.com/ebb-am/ebb/yarnclient"
)

// `ebb am` is the AM in its YARN container; amhost assembles and runs it.
// This command reads its flags and the container's environment (once),
// and turns the attempt's end into the exit code.
func newYarnAMCmd() *cobra.Command {
	var o amhost.YarnOptions
	cmd := &cobra.Command{
		Use:    "am",
		Short:  "Run as the ApplicationMaster in a YARN container (started by `ebb submit`, not by people)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return runYarnAM(ctx, o, amhost.ReadYarnEnv(os.Getenv))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.ConfPath, "conf", yarnclient.StagedConf, "the configuration shipped by ebb submit")
	f.StringVar(&o.DAGPath, "dag", "", "a DAG to run (the AM ends with it unless it is a session)")
	f.StringVar(&o.DAGName, "dag-name", "", "the DAG file's name as the user gave it, for messages (default: --dag)")
	f.StringVar(&o.Output, "output", "", "override the DAG's output")
	f.BoolVar(&o.Overwrite, "overwrite", false, "replace an output that already holds results, once the DAG succeeds")
	f.StringVar(&o.LogDir, "log-dir", "", "write the log to am.log here, rolled as ebb.log.roll.* say; stderr keeps warnings and errors")
	return cmd
}

func runYarnAM(ctx context.Context, o amhost.YarnOptions, env amhost.YarnEnv) error {
	start := time.Now()
	// stderr until the configuration says how am.log rolls; then am.log,
	// with warnings and errors on stderr too (amhost.StartYarn).
	log := newLogger("info", "", "")
	y, err := amhost.StartYarn(ctx, o, env, log, start)
	if err != nil {
		log.Errorf("ebb am: %v", err)
		return err
	}
	status, diag := y.Run(ctx)
	return y.Finish(status, diag)
}
