package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/rolllog"
	"github.com/ebb-am/ebb/worker"
	"github.com/ebb-am/ebb/yarnrpc"
)

func newWorkerCmd() *cobra.Command {
	var o worker.Options
	var stopGrace time.Duration
	var roll rolllog.Roll
	var rollKB int64
	cmd := &cobra.Command{
		Use:    "worker",
		Short:  "Run a ContainerWorker (started by the AM's world, not by people)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			secret, err := workerSecret(os.Getenv)
			if err != nil {
				return err
			}
			o.Secret = secret
			// The log is <log-dir>/worker.log, rolled when the AM says so
			// (YARN: ebb.log.roll.*); stderr, which YARN and the local
			// world keep as the container's stderr file, gets warnings and
			// errors only (YARN's diagnostics show its tail).
			o.Log = newLogger("", "", "")
			roll.MaxBytes = rollKB * 1024
			logFile, err := rolllog.Attach(o.Log, o.LogDir, rolllog.WorkerFile, roll, os.Stderr)
			if err != nil {
				return fmt.Errorf("worker: %w", err)
			}
			defer func() { _ = logFile.Close() }() // the process is ending; nothing left to log the error to
			return runWorker(o, stopGrace)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&stopGrace, "stop-grace", 10*time.Second, "after SIGTERM, how long the worker may take to stop in order before it kills its tasks and exits with status 3")
	f.StringVar(&o.AMAddress, "am", "", "the AM's address (host:port)")
	f.StringVar(&o.WorkerID, "worker-id", "", "this worker's id")
	f.StringVar(&o.Group, "group", "", "the ContainerGroup")
	f.StringVar(&o.Node, "node", "", "the node this worker runs on")
	f.StringVar(&o.ContainerID, "container-id", "", "the container id (YARN) or process tag (local)")
	f.Int64Var(&o.MemoryMB, "memory-mb", 1024, "memory this worker offers to attempts")
	f.IntVar(&o.VCores, "vcores", 1, "vcores")
	f.StringVar(&o.WorkDir, "work-dir", ".", "directory for attempts and outputs")
	f.StringVar(&o.LogDir, "log-dir", ".", "directory for logs")
	f.StringVar(&o.AMFile, "am-file", "", "a file (or hdfs:// URL) naming the current AM attempt's address, to rejoin a new attempt when the AM dies")
	f.BoolVar(&o.RejoinInPlace, "rejoin-in-place", false, "when the AM dies, rejoin it at --am when it comes back there (a Kubernetes AM pod's container restarting), retrying for 2 minutes")
	f.Int64Var(&rollKB, "log-roll-kb", 0, "roll worker.log when it would grow beyond this many KB (0 = never)")
	f.IntVar(&roll.Keep, "log-roll-count", 1, "rolled pieces of worker.log kept")
	f.StringVar(&o.AdvertiseHost, "advertise-host", "", "host other workers use to fetch outputs (default 127.0.0.1)")
	f.StringVar(&o.HDFSRetrySpec, "hdfs-retry-spec", "", "dfs.client.retry.policy.spec: (milliseconds, count) pairs a commit to HDFS waits out a NameNode that does not answer (default Hadoop's "+hdfsfs.DefaultRetrySpec+")")
	return cmd
}

// exitWedged is the status of a worker that did not stop in order within
// its grace after SIGTERM.
const exitWedged = 3

// runWorker runs the worker until it ends or a signal stops it. SIGTERM
// (or an interrupt) cancels it, and it stops in order: its attempts killed,
// their final updates sent. If it has not returned grace later, or a second
// signal comes, some goroutine is wedged and waiting longer will not help
// (issue 24: a worker deadlocked on its own locks ignored SIGTERM and
// outlived the run): the tasks' process groups are killed and the process
// exits with exitWedged at once.
func runWorker(o worker.Options, grace time.Duration) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, o) }()
	select {
	case err := <-done:
		return err
	case <-sigs:
	}
	cancel()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-done:
		if errors.Is(err, context.Canceled) {
			return nil // stopped by a signal: a clean exit
		}
		return err
	case <-sigs:
	case <-t.C:
	}
	n := worker.KillChildGroups()
	// Not through the logger, and not waited for: whatever wedged the
	// worker may hold the logger, or stderr may be a pipe nobody reads.
	go fmt.Fprintf(os.Stderr, "worker: not stopped %s after SIGTERM; killed %d task process groups, exiting\n", grace, n)
	os.Exit(exitWedged)
	return nil
}

// workerSecret is the application secret: $EBB_SECRET (the local world's
// workers), else the secret key yarn.SecretAlias of the container's token
// file (a YARN worker: see yarn.World's workerCredentials).
func workerSecret(getenv func(string) string) (string, error) {
	if s := getenv("EBB_SECRET"); s != "" {
		return s, nil
	}
	path := getenv("HADOOP_TOKEN_FILE_LOCATION")
	if path == "" {
		return "", errors.New("worker: no application secret: neither EBB_SECRET nor HADOOP_TOKEN_FILE_LOCATION is set")
	}
	creds, err := yarnrpc.ReadCredentialsFile(path)
	if err != nil {
		return "", fmt.Errorf("worker: reading the application secret: %w", err)
	}
	for _, s := range creds.Secrets {
		if s.Alias == yarn.SecretAlias && len(s.Secret) > 0 {
			return string(s.Secret), nil
		}
	}
	return "", fmt.Errorf("worker: no application secret (%s) in the token file %s, nor in EBB_SECRET", yarn.SecretAlias, path)
}
