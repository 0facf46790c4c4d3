package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Causes an attempt's context is cancelled with; they decide the final
// state reported to the AM.
var (
	errKilled        = errors.New("killed")
	errWorkerExiting = fmt.Errorf("%w: the worker is exiting", errKilled)
)

// MemoryExceededError is the cause of an attempt killed for using more
// memory than it asked for (beyond the 10% tolerance).
type MemoryExceededError struct {
	UsedMB, LimitMB int64
}

func (e *MemoryExceededError) Error() string {
	return fmt.Sprintf("exceeded memory: used %d MB of %d MB", e.UsedMB, e.LimitMB)
}

// attempt is one accepted RunAttempt.
type attempt struct {
	req      *ebbpb.RunAttempt
	accepted time.Time // when the worker took it (a new AM attempt's record of its start)
	dir      string
	ctx      context.Context
	cancel   context.CancelCauseFunc
	log      *logrus.Entry

	// mu guards the fields below it up to sendMu. Like every lock of the
	// worker (see worker.mu) it is taken alone and nothing blocks under it.
	mu lockorder.Mutex
	// pgid is the process group of the running command, 0 before start.
	pgid     int
	rssBytes int64
	// streams feeds the attempt's splits when they are streamed (nil
	// before the command starts, or with inputMode: file).
	streams *splitStreams
	// more are inputs the AM sent after the start (slow start), not yet
	// taken by fetchInputs; moreCh says some arrived.
	more   []*ebbpb.AttemptInputs
	moreCh chan struct{}
	// granted is closed when the AM lets the attempt commit (ask_commit);
	// grantOnce guards the close against a repeated grant.
	granted   chan struct{}
	grantOnce sync.Once

	// sendMu orders the attempt's updates on the sender's queue: RUNNING,
	// then progress, then the final one, never a progress after it. It is
	// held while an update is queued (which waits when the queue is full)
	// and so is a lock of its own, apart from mu: a heartbeat reading the
	// attempt's memory never waits behind the stream. Nothing else is
	// locked under it.
	sendMu lockorder.Mutex
	// started is set once RUNNING is queued; progress is the last progress
	// queued; final is set once the final update is queued.
	started  bool
	progress float32
	status   string // the last status queued
	final    bool

	// rep (under mu) is a stream vertex's reporter, whose status goes
	// with the attempt's progress; nil for other vertices.
	rep *reporter

	// released (under the worker's mu) is set when the AM killed the
	// attempt: its memory went back to the worker then, not when the
	// process is gone.
	released bool
}

// addInputs queues inputs that arrived after the start for fetchInputs.
func (a *attempt) addInputs(m *ebbpb.AttemptInputs) {
	a.mu.Lock()
	a.more = append(a.more, m)
	a.mu.Unlock()
	select {
	case a.moreCh <- struct{}{}:
	default: // a signal is already pending
	}
}

// takeInputs returns and clears the queued later inputs.
func (a *attempt) takeInputs() []*ebbpb.AttemptInputs {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.more
	a.more = nil
	return m
}

func (a *attempt) kill(cause error) { a.cancel(cause) }

func (a *attempt) rss() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rssBytes
}

func (a *attempt) inputDir() string     { return filepath.Join(a.dir, "input") }
func (a *attempt) outputDir() string    { return filepath.Join(a.dir, "output") }
func (a *attempt) progressFile() string { return filepath.Join(a.dir, "progress") }

// reportProgress sends a RUNNING update if the task's progress changed:
// what it wrote to its progress file, else, when it reads streamed
// splits, the share of their bytes it has been handed (a program reading
// a pipe cannot know its size, so the worker, which knows the split's
// length, counts for it).
func (a *attempt) reportProgress(out *sender) {
	a.mu.Lock()
	streams, rep := a.streams, a.rep
	a.mu.Unlock()
	p, ok := readProgress(a.progressFile())
	if !ok {
		p, ok = streams.progress()
	}
	status := rep.currentStatus()
	a.sendMu.Lock()
	defer a.sendMu.Unlock()
	if !ok {
		p = a.progress
	}
	if !a.started || a.final || (p == a.progress && status == a.status) {
		return
	}
	a.progress, a.status = p, status
	out.send(attemptUpdate(&ebbpb.AttemptUpdate{AttemptId: a.req.GetAttemptId(), State: ebbpb.AttemptState_ATTEMPT_RUNNING, Progress: p, Status: status}))
}

// sendRunning queues the RUNNING update that says the command started;
// progress updates may follow it.
func (a *attempt) sendRunning(out *sender) {
	a.sendMu.Lock()
	defer a.sendMu.Unlock()
	a.started = true
	out.send(attemptUpdate(&ebbpb.AttemptUpdate{AttemptId: a.req.GetAttemptId(), State: ebbpb.AttemptState_ATTEMPT_RUNNING}))
}

// resendState repeats, for a new AM attempt, the attempt's standing: its
// ask to commit once granted (it is committing), else its last progress.
func (a *attempt) resendState(out *sender) {
	a.sendMu.Lock()
	defer a.sendMu.Unlock()
	if !a.started || a.final {
		return
	}
	select {
	case <-a.granted:
		out.send(attemptUpdate(&ebbpb.AttemptUpdate{AttemptId: a.req.GetAttemptId(), State: ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING, Progress: 1}))
	default:
		if a.progress > 0 || a.status != "" {
			out.send(attemptUpdate(&ebbpb.AttemptUpdate{AttemptId: a.req.GetAttemptId(), State: ebbpb.AttemptState_ATTEMPT_RUNNING, Progress: a.progress, Status: a.status}))
		}
	}
}

// awaitCommit asks the AM to commit (ATTEMPT_COMMIT_PENDING) and waits for
// its grant or the attempt's end: of a task's racing attempts the AM lets
// only the first that asks publish its files, and kills the other. The ask
// is repeated every every until answered, so that an AM attempt that took
// over after the first ask, or a stream that broke under it, still hears
// it (a repeated grant is harmless).
func (a *attempt) awaitCommit(out func() *sender, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		a.sendMu.Lock()
		out().send(attemptUpdate(&ebbpb.AttemptUpdate{AttemptId: a.req.GetAttemptId(), State: ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING, Progress: 1}))
		a.sendMu.Unlock()
		select {
		case <-a.granted:
			return nil
		case <-a.ctx.Done():
			return context.Cause(a.ctx)
		case <-t.C:
		}
	}
}

// grant lets the attempt commit.
func (a *attempt) grant() { a.grantOnce.Do(func() { close(a.granted) }) }

// sendFinal queues the attempt's last update.
func (a *attempt) sendFinal(out *sender, u *ebbpb.AttemptUpdate) {
	a.sendMu.Lock()
	defer a.sendMu.Unlock()
	a.final = true
	out.send(attemptUpdate(u))
}

// readProgress parses the number a task wrote to its progress file,
// clamped to 0..1; a missing or half-written file is simply no news.
func readProgress(path string) (float32, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 32)
	if err != nil {
		return 0, false
	}
	return float32(min(max(f, 0), 1)), true
}

// startAttempt admits a RunAttempt (or refuses it with an update) and runs
// it in its own goroutine.
func (w *worker) startAttempt(req *ebbpb.RunAttempt) {
	id := req.GetAttemptId()
	refuse := func(state ebbpb.AttemptState, diag string) {
		w.log.WithField("attempt", id).Warn("refusing attempt: " + diag)
		w.sender().send(attemptUpdate(&ebbpb.AttemptUpdate{AttemptId: id, State: state, Diagnostics: diag}))
	}
	if !safeSegment(id) {
		refuse(ebbpb.AttemptState_ATTEMPT_FAILED, fmt.Sprintf("attempt id %q is not a usable directory name", id))
		return
	}
	w.mu.Lock()
	switch {
	case w.stopping:
		w.mu.Unlock()
		refuse(ebbpb.AttemptState_ATTEMPT_KILLED, "worker is stopping and takes no new attempts")
		return
	case w.unhealthy != "":
		why := w.unhealthy
		w.mu.Unlock()
		refuse(ebbpb.AttemptState_ATTEMPT_KILLED, "worker is unhealthy and takes no new attempts: "+why)
		return
	case w.running[id] != nil:
		w.mu.Unlock()
		w.log.WithField("attempt", id).Warn("attempt is already running; duplicate RunAttempt ignored")
		return
	case w.usedMB+req.GetMemoryMb() > w.memoryMB:
		used, total := w.usedMB, w.memoryMB
		w.mu.Unlock()
		refuse(ebbpb.AttemptState_ATTEMPT_FAILED, fmt.Sprintf(
			"not enough memory on worker %s: attempt needs %d MB, %d MB of %d MB already in use",
			w.o.WorkerID, req.GetMemoryMb(), used, total))
		return
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	a := &attempt{
		req:      req,
		accepted: time.Now(),
		dir:      w.attemptDir(id),
		ctx:      ctx,
		cancel:   cancel,
		moreCh:   make(chan struct{}, 1),
		granted:  make(chan struct{}),
		log:      w.log.WithFields(logrus.Fields{"attempt": id, "dag": req.GetDagId(), "vertex": req.GetVertex(), "task": req.GetTaskIndex()}),
	}
	a.mu.SetClass("worker.attempt")
	a.sendMu.SetClass("worker.attempt.send")
	w.usedMB += req.GetMemoryMb()
	w.running[id] = a
	env := w.env
	w.wg.Add(1)
	w.mu.Unlock()

	go func() {
		defer w.wg.Done()
		defer cancel(nil)
		w.runAttempt(a, env)
	}()
}

// runAttempt executes a and reports its end. Memory is released and the
// outputs are published before the final update is sent, because the AM
// reacts to it at once: by placing another attempt here, or by sending
// consumers to fetch the outputs.
func (w *worker) runAttempt(a *attempt, reinitEnv map[string]string) {
	a.log.Info("attempt accepted")
	u := w.execute(a, reinitEnv)
	u.AttemptId = a.req.GetAttemptId()
	succeeded := u.State == ebbpb.AttemptState_ATTEMPT_SUCCEEDED
	if u.State == ebbpb.AttemptState_ATTEMPT_FAILED {
		// Before its files are removed: a full disk is seen full.
		u.Diagnostics = w.checkDiskAfterFailure() + u.Diagnostics
	}
	if succeeded {
		// The inputs are not needed any more; the outputs are served.
		_ = os.RemoveAll(a.inputDir())
		w.outputs.add(a.req.GetAttemptId(), a.req.GetDagId(), a.outputDir())
	} else if err := os.RemoveAll(a.dir); err != nil {
		a.log.WithError(err).Warn("removing attempt dir")
	}
	w.mu.Lock()
	delete(w.running, a.req.GetAttemptId())
	if !a.released {
		w.usedMB -= a.req.GetMemoryMb()
	}
	if succeeded {
		w.finished[a.req.GetAttemptId()] = a.req.GetDagId()
	}
	w.finals[a.req.GetAttemptId()] = final{held: heldOf(a), update: u}
	out := w.out
	w.mu.Unlock()
	a.log.WithFields(logrus.Fields{"state": u.State.String(), "exit": u.ExitCode, "diagnostics": u.Diagnostics}).Info("attempt ended")
	a.sendFinal(out, u)
}

// execute prepares the attempt's directory, fetches its inputs, runs its
// command and decides the final update (without attempt id).
func (w *worker) execute(a *attempt, reinitEnv map[string]string) *ebbpb.AttemptUpdate {
	req := a.req
	killedOr := func(u *ebbpb.AttemptUpdate) *ebbpb.AttemptUpdate {
		if cause := context.Cause(a.ctx); cause != nil {
			return endedBy(cause)
		}
		return u
	}
	failed := func(format string, args ...any) *ebbpb.AttemptUpdate {
		return killedOr(failedf(format, args...))
	}
	// A retried attempt id must not see leftovers of an earlier run.
	_ = os.RemoveAll(a.dir)
	for _, d := range []string{a.inputDir(), a.outputDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return failed("creating %s: %v", d, err)
		}
	}
	for _, o := range req.GetOutputs() {
		if !safeSegment(o.GetConsumer()) {
			return failed("consumer vertex name %q is not a usable directory name", o.GetConsumer())
		}
		if err := os.MkdirAll(filepath.Join(a.outputDir(), o.GetConsumer()), 0o755); err != nil {
			return failed("creating output dir: %v", err)
		}
	}
	if err := w.fetchInputs(a); err != nil {
		var fe *FetchError
		if errors.As(err, &fe) && !errors.Is(err, errUnauthorized) {
			return killedOr(&ebbpb.AttemptUpdate{
				State:              ebbpb.AttemptState_ATTEMPT_FETCH_FAILED,
				ExitCode:           -1,
				Diagnostics:        err.Error(),
				FetchFailedAttempt: fe.ProducerAttempt,
			})
		}
		return failed("%v", err)
	}
	var fifos []string
	if req.GetSplitsAsFiles() {
		if err := w.copySplits(a); err != nil {
			return failed("reading input split: %v", err)
		}
	} else if n := len(req.GetSplits()); n > 0 && req.GetEnv()[dag.EnvStream] == "" {
		// (A stream vertex gets its splits on stdin: streamio.go.)
		var err error
		if fifos, err = makeSplitPipes(splitsDir(a), n); err != nil {
			return failed("%v", err)
		}
	}
	if cause := context.Cause(a.ctx); cause != nil {
		return endedBy(cause)
	}
	return w.runCommand(a, reinitEnv, fifos)
}

// openSplit opens an input file wherever it lives, for attempt a. On
// HDFS a NameNode that does not answer (restarting) is waited out within
// dfs.client.retry.policy.spec, at the connection, the open and any read
// after it: a read that breaks goes on at the offset it reached
// (hdfsfs.OpenResuming).
func (w *worker) openSplit(a *attempt, location string) (io.ReadSeekCloser, error) {
	open := func() (io.ReadSeekCloser, error) {
		fsys, p, err := w.fss.resolve(location)
		if err != nil {
			return nil, err
		}
		return fsys.Open(p)
	}
	var in io.ReadSeekCloser
	var err error
	if strings.HasPrefix(location, "hdfs://") {
		retried := func(err error, next time.Duration) {
			a.log.WithError(err).Warnf("reading %s: HDFS does not answer; trying again in %s (%s)", location, next, hdfsfs.RetrySpecKey)
		}
		in, err = w.o.hdfsRetry.OpenResuming(a.ctx, "reading "+location, open, retried)
	} else {
		in, err = open()
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", location, err)
	}
	return in, nil
}

// endedBy turns the cause of a cancelled attempt into its final update.
func endedBy(cause error) *ebbpb.AttemptUpdate {
	var mem *MemoryExceededError
	if errors.As(cause, &mem) {
		u := failedf("%s", mem.Error())
		u.MemoryUsedMb = mem.UsedMB
		return u
	}
	return &ebbpb.AttemptUpdate{State: ebbpb.AttemptState_ATTEMPT_KILLED, ExitCode: -1, Diagnostics: cause.Error()}
}

// failedf is an attempt's final update when the worker, not the task's
// own exit, failed it (ExitCode -1: no process exit to report).
func failedf(format string, args ...any) *ebbpb.AttemptUpdate {
	return &ebbpb.AttemptUpdate{State: ebbpb.AttemptState_ATTEMPT_FAILED, ExitCode: -1, Diagnostics: fmt.Sprintf(format, args...)}
}
