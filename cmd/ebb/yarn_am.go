package main

import (
	"context"
	"errors"
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
	var master string
	var ko amhost.KubeOptions
	cmd := &cobra.Command{
		Use:    "am",
		Short:  "Run as the ApplicationMaster in a YARN container (started by `ebb submit`, not by people)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			if master == "kubernetes" {
				ko.ConfPath, ko.DAGPath, ko.DAGName, ko.Output, ko.Overwrite = o.ConfPath, o.DAGPath, o.DAGName, o.Output, o.Overwrite
				return runKubeAM(ctx, ko, amhost.ReadKubeEnv(os.Getenv))
			}
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
	f.StringVar(&master, "master", "yarn", "the world the AM runs in: yarn (a YARN container) or kubernetes (the AM pod `ebb submit` makes)")
	f.StringVar(&ko.App, "app", "", "kubernetes: the application's name (its pods' prefix and ebb.io/app label)")
	f.StringVar(&ko.StateDir, "state-dir", "/ebb/state", "kubernetes: the AM pod's emptyDir, for the recovery log and the history (it outlives the container's restarts)")
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

// runKubeAM runs the AM in its pod; its log goes to stdout (kubectl logs).
func runKubeAM(ctx context.Context, o amhost.KubeOptions, env amhost.KubeEnv) error {
	log := newLogger("info", "", "")
	log.SetOutput(os.Stdout)
	k, err := amhost.StartKube(ctx, o, env, log)
	if err != nil {
		log.Errorf("ebb am: %v", err)
		return err
	}
	// A DAG that failed ends the container with status 0 all the same (its
	// outcome is on the pod): restartPolicy OnFailure restarts only an AM
	// that did not run to its end.
	ok, diag := k.Run(ctx)
	if k.Finish(ok, diag) {
		return errors.New(diag)
	}
	return nil
}
