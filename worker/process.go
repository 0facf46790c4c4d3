package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/proto/ebbpb"
	"github.com/ebb-am/ebb/task"
)

// stderrTail is how much of a failed attempt's stderr goes into its
// diagnostics: enough for a stack trace's top, small enough for the AM.
const stderrTail = 2048

// runCommand starts the attempt's command in its directory under the task
// contract, streams its splits into the named pipes fifos while it runs
// (stream.go), reports RUNNING, waits, commits a sink's outputs and
// decides the final update.
func (w *worker) runCommand(a *attempt, reinitEnv map[string]string, fifos []string) *ebbpb.AttemptUpdate {
	req := a.req
	argv := req.GetCommand()
	if len(argv) == 0 {
		return failedf("vertex %s has an empty command", req.GetVertex())
	}
	name := argv[0]
	if name == "ebb" {
		name = w.o.Executable
	}
	id := req.GetAttemptId()
	stdout, err := os.Create(filepath.Join(w.o.LogDir, id+".stdout"))
	if err != nil {
		return failedf("creating stdout log: %v", err)
	}
	defer func() { _ = stdout.Close() }() // the child has exited: its output is written
	stderrPath := filepath.Join(w.o.LogDir, id+".stderr")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return failedf("creating stderr log: %v", err)
	}
	defer func() { _ = stderr.Close() }() // the child has exited: its output is written

	cmd := exec.Command(name, argv[1:]...)
	cmd.Dir = a.dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = w.taskEnv(a, reinitEnv)
	// Its own process group, so a kill reaches the task's children too and
	// memory is counted for all of them; and no orphans if the worker dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	sr, err := w.setupStream(a, cmd)
	if err != nil {
		return failedf("%v", err)
	}
	if err := cmd.Start(); err != nil {
		sr.abort()
		return failedf("starting %q: %v", name, err)
	}
	sr.start()
	streams := startSplitStreams(fifos, req.GetSplits(), func(p string) (io.ReadSeekCloser, error) { return w.openSplit(a, p) }, a.log)
	pid := cmd.Process.Pid
	a.mu.Lock()
	a.pgid = pid
	a.streams = streams
	a.mu.Unlock()
	a.log.WithField("pid", pid).Info("attempt started")
	a.sendRunning(w.sender())

	exited := make(chan struct{})
	go func() {
		select {
		case <-a.ctx.Done():
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		case <-streams.failed:
			// The task is reading a truncated split: no use going on.
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		case <-exited:
		}
	}()
	waitErr := cmd.Wait()
	close(exited)
	// Whatever the task left running in the background goes with it.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	streamErr := streams.stop()
	ioErr, waitErr := sr.end(waitErr)
	if cause := context.Cause(a.ctx); cause != nil {
		return endedBy(cause)
	}
	if streamErr != nil {
		// Whatever the task did, it saw only part of its split.
		return failedf("reading input split: %v", streamErr)
	}
	if ioErr != nil && waitErr == nil {
		return failedf("%v", ioErr)
	}
	if waitErr != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			code = ee.ExitCode()
		}
		return &ebbpb.AttemptUpdate{
			State:       ebbpb.AttemptState_ATTEMPT_FAILED,
			Status:      sr.status(),
			ExitCode:    int32(code),
			Diagnostics: fmt.Sprintf("%s exited: %v; stderr tail:\n%s", argv[0], waitErr, tailOf(stderrPath, stderrTail)),
		}
	}
	if missing := missingPartitions(a.outputDir(), req.GetOutputs()); len(missing) > 0 {
		return failedf("%s", missingDiagnostic(missing, partitionCount(req.GetOutputs())))
	}
	bytes, err := dirSize(a.outputDir())
	if err != nil {
		return failedf("measuring outputs: %v", err)
	}
	if dir := req.GetCommitDir(); dir != "" {
		if u := w.commitSink(a, dir); u != nil {
			return u
		}
	}
	return &ebbpb.AttemptUpdate{State: ebbpb.AttemptState_ATTEMPT_SUCCEEDED, Progress: 1, OutputBytes: bytes,
		Counters: sr.counters(), Status: sr.status()}
}

// commitSink commits a sink attempt's outputs to dir, once the AM grants
// it when it must ask; nil when they are committed, else the attempt's
// final update.
func (w *worker) commitSink(a *attempt, dir string) *ebbpb.AttemptUpdate {
	req, id := a.req, a.req.GetAttemptId()
	if req.GetAskCommit() {
		if err := a.awaitCommit(w.sender, defaultHeartbeat); err != nil {
			return endedBy(err)
		}
	}
	// A worker that wakes from a stop past the AM's timeout holds an
	// attempt the AM has given to another: it must not commit.
	if err := w.mayAct(); err != nil {
		return endedBy(err)
	}
	// A NameNode that does not answer (restarting) is waited out
	// within dfs.client.retry.policy.spec; the commit starts over each
	// time, and a retried rename replaces what an earlier try placed.
	commit := func() error {
		return commitOutputs(a.ctx, w.fss, a.outputDir(), dir, id, req.GetTaskIndex(), w.mayAct)
	}
	retried := func(err error, next time.Duration) {
		a.log.WithError(err).Warnf("committing to %s: HDFS does not answer; trying again in %s (%s)", dir, next, hdfsfs.RetrySpecKey)
	}
	if err := w.o.hdfsRetry.Do(a.ctx, "committing outputs to "+dir, commit, retried); err != nil {
		return failedf("committing outputs to %s: %v", dir, err)
	}
	return nil
}

// taskEnv is the worker's environment (less the secret), then the group's (from Reinit), then
// the attempt's, then the task contract; later entries win.
func (w *worker) taskEnv(a *attempt, reinitEnv map[string]string) []string {
	req := a.req
	var env []string
	for _, kv := range os.Environ() {
		// However the worker received the application secret, tasks do
		// not get it: they have no business talking to the AM or serving.
		if _, v, _ := strings.Cut(kv, "="); v == w.o.Secret {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range reinitEnv {
		env = append(env, k+"="+v)
	}
	for k, v := range req.GetEnv() {
		env = append(env, k+"="+v)
	}
	outs := make([]task.Output, 0, len(req.GetOutputs()))
	for _, o := range req.GetOutputs() {
		outs = append(outs, task.Output{Consumer: o.GetConsumer(), Partitions: int(o.GetPartitions())})
	}
	contract := [][2]string{
		{task.EnvDAGID, req.GetDagId()},
		{task.EnvDAGName, req.GetDagName()},
		{task.EnvVertex, req.GetVertex()},
		{task.EnvTaskIndex, strconv.Itoa(int(req.GetTaskIndex()))},
		{task.EnvAttempt, strconv.Itoa(int(req.GetAttempt()))},
		{task.EnvAttemptID, req.GetAttemptId()},
		{task.EnvParallelism, strconv.Itoa(int(req.GetParallelism()))},
		{task.EnvMemoryMB, strconv.FormatInt(req.GetMemoryMb(), 10)},
		{task.EnvWorkDir, a.dir},
		{task.EnvInputDir, a.inputDir()},
		{task.EnvOutputDir, a.outputDir()},
		{task.EnvOutputs, task.FormatOutputs(outs)},
		{task.EnvProgressFile, a.progressFile()},
	}
	for _, kv := range contract {
		env = append(env, kv[0]+"="+kv[1])
	}
	return env
}

// tailOf returns up to n bytes from the end of a file, starting at a line.
func tailOf(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-n, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	s := string(buf)
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}

// dirSize is the total size of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		return nil
	})
	return total, err
}
