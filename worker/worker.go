package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// defaultHeartbeat is used when the AM does not say how often to heartbeat.
const defaultHeartbeat = time.Second

// worker is the state of one Run.
type worker struct {
	o           Options
	log         *logrus.Logger
	fss         *filesystems
	outputs     *outputStore
	httpClient  *http.Client
	dataAddress string
	// out is the current session's sender (sender() reads it): attempts
	// outlive a session when the worker rejoins a new AM attempt.
	out *sender

	// mu guards the fields below it. The worker's locks have no order
	// because none is ever taken under another: mu, each attempt's mu
	// and sendMu, the output store's, the file systems' and the split
	// streams' are each held alone, and what must be done with another's
	// state is done after copying what is needed and unlocking. Nothing
	// that can block (the sender's queue, a child, the network) is called
	// under mu or an attempt's mu, so a heartbeat, a memory sample or a
	// new attempt never waits behind a stuck one (issue 24: a heartbeat
	// holding mu took an attempt's mu while that attempt, holding its own,
	// took mu, and the worker stopped for good). Tests built with -tags
	// lockorder report any nesting that closes a cycle.
	mu       lockorder.Mutex
	group    string
	env      map[string]string
	memoryMB int64
	usedMB   int64
	stopping bool
	// running holds accepted attempts until their final update is decided.
	running map[string]*attempt
	// finished maps attempts whose directory still exists to their DAG, so
	// DAGDone can delete it.
	finished map[string]string
	// finals are the last updates of ended attempts, by attempt, until
	// their DAG ends: a new AM attempt hears them again (the old one may
	// have died before it recorded them).
	finals map[string]final
	// lease is the worker's view of whether the AM still counts on it
	// (fence.go); fenced is set once it broke, endSession ends the
	// current session.
	lease  lease
	fenced error
	// unhealthy says why the work dir's disk takes no more work (disk.go).
	unhealthy  string
	endSession context.CancelFunc
	wg         sync.WaitGroup
}

// Run registers with the AM at o.AMAddress and serves it until the AM
// closes the stream after a graceful Stop (nil), a Stop{graceful=false}
// (nil), ctx ends (ctx's error) or the stream breaks (an error wrapping
// ErrStreamBroken). Running attempts are killed whenever Run returns.
func Run(ctx context.Context, o Options) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	log := o.Log
	if log == nil {
		l, logFile, err := newLogger(o.LogDir)
		if err != nil {
			return err
		}
		defer func() { _ = logFile.Close() }() // the process is ending; nothing left to log the error to
		log = l
	}
	if err := os.MkdirAll(o.LogDir, 0o755); err != nil {
		return fmt.Errorf("creating log dir: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(o.WorkDir, "attempts"), 0o755); err != nil {
		return fmt.Errorf("creating work dir: %w", err)
	}

	w := &worker{
		o:          o,
		log:        log,
		fss:        &filesystems{},
		outputs:    newOutputStore(o.Secret),
		httpClient: newFetchClient(),
		group:      o.Group,
		memoryMB:   o.MemoryMB,
		running:    map[string]*attempt{},
		finished:   map[string]string{},
		finals:     map[string]final{},
	}
	w.mu.SetClass("worker")
	w.fss.mu.SetClass("worker.filesystems")
	defer w.fss.close()

	outputs, err := w.serveOutputs()
	if err != nil {
		return fmt.Errorf("listening for output fetches: %w", err)
	}
	defer func() {
		if err := outputs.stop(outputStopGrace); err != nil {
			log.Warn(err)
		}
	}()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go w.watchMemory(ctx)
	addr, reconnect := o.AMAddress, false
	var sess *session
	var goneAt time.Time // when the AM last went away
	for {
		sess, err = w.session(ctx, addr, reconnect)
		if !w.mayReconnect(err, reconnect) {
			break
		}
		if sess != nil {
			sess.close() // its heartbeat stops; attempts and outputs stay
		}
		// The AM is gone: a new attempt starts a new lease, unless this
		// worker wakes from a stop to find the stream broken.
		if ferr := w.lease.suspend(time.Now()); ferr != nil {
			w.fenceOff(ferr)
			err = ferr
			break
		}
		if sess != nil || goneAt.IsZero() {
			goneAt = time.Now()
			w.log.WithError(err).Warn("the AM is gone; looking for a new AM attempt to rejoin")
		} else {
			w.log.WithError(err).Debug("no AM attempt to rejoin yet")
		}
		next, ferr := w.awaitAM(ctx, addr, goneAt)
		if ferr != nil {
			err = fmt.Errorf("%w; no new AM attempt: %v", err, ferr)
			break
		}
		addr, reconnect = next, true
	}
	if ferr := w.fencedErr(); ferr != nil {
		err = ferr
	}
	w.killAll(errWorkerExiting)
	w.wg.Wait()
	if sess != nil {
		sess.finish()
		sess.close()
	}
	return err
}

// session is one connection to one AM attempt.
type session struct {
	conn   *grpc.ClientConn
	stream ebbpb.Worker_ConnectClient
	out    *sender
	cancel context.CancelFunc
}

// session connects to the AM at addr, registers and serves it until the
// stream ends. The session comes back (for its last messages) whenever it
// got as far as a stream.
func (w *worker) session(ctx context.Context, addr string, reconnect bool) (*session, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, &RegisterError{Err: fmt.Errorf("dialing AM %s: %w", addr, err)}
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &session{conn: conn, cancel: cancel}
	streamCtx := metadata.AppendToOutgoingContext(sctx, "authorization", "Bearer "+w.o.Secret)
	s.stream, err = ebbpb.NewWorkerClient(conn).Connect(streamCtx)
	if err != nil {
		s.close()
		return nil, &RegisterError{Err: err}
	}
	interval, lostAfter, err := w.register(s.stream, cancel, reconnect)
	if err != nil {
		s.close()
		return nil, err
	}
	s.out = newSender(s.stream)
	go s.out.loop()
	w.lease.start(time.Now(), lostAfter)
	w.mu.Lock()
	w.out = s.out
	w.endSession = cancel
	w.mu.Unlock()
	if reconnect {
		w.resendFinals()
		w.resendRunning()
	}
	go w.heartbeat(sctx, interval)
	return s, w.receive(sctx, s.stream)
}

// finish sends what is queued and half-closes the stream.
func (s *session) finish() {
	s.out.flush(2 * time.Second)
	s.out.stop()
	select {
	case <-s.out.done:
		_ = s.stream.CloseSend()
	case <-time.After(time.Second):
	}
}

func (s *session) close() {
	s.cancel()
	if s.out != nil {
		s.out.stop()
	}
	_ = s.conn.Close() // the stream has ended: the connection has nothing left to deliver
}

// newFetchClient is the HTTP client for fetching upstream outputs. It
// ignores proxy settings (workers talk to each other directly) and gives up
// on a worker that does not connect or answer, so a consumer reports a
// fetch failure instead of hanging on a dead producer's node.
func newFetchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}}
}

// register sends Register and waits for Registered, which must be the AM's
// first message. It returns the heartbeat interval the AM asked for and
// the silence after which it loses the worker. A worker rejoining a new
// AM attempt says what it runs and serves.
func (w *worker) register(stream ebbpb.Worker_ConnectClient, cancel context.CancelFunc, reconnect bool) (interval, lostAfter time.Duration, err error) {
	o := w.o
	w.mu.Lock()
	reg := &ebbpb.Register{
		WorkerId:    o.WorkerID,
		Group:       w.group,
		Node:        o.Node,
		MemoryMb:    w.memoryMB,
		Vcores:      int32(o.VCores),
		DataAddress: w.dataAddress,
		ContainerId: o.ContainerID,
	}
	if reconnect {
		reg.Reconnect = true
		reg.Attempts = w.heldAttempts()
	}
	w.mu.Unlock()
	if reconnect {
		reg.Outputs = w.outputs.attempts()
	}
	err = stream.Send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Register{Register: reg}})
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, &RegisterError{Err: err}
	}
	// Send reports a refused stream as io.EOF; Recv below gives the status.
	timer := time.AfterFunc(o.RegisterTimeout, cancel)
	m, err := stream.Recv()
	if !timer.Stop() {
		return 0, 0, &RegisterError{Err: fmt.Errorf("no answer from the AM within %s", o.RegisterTimeout)}
	}
	if err != nil {
		return 0, 0, &RegisterError{Err: err}
	}
	ack := m.GetRegistered()
	if ack == nil {
		return 0, 0, &RegisterError{Err: fmt.Errorf("AM answered %T before Registered", m.GetMsg())}
	}
	interval = time.Duration(ack.GetHeartbeatIntervalMs()) * time.Millisecond
	lostAfter = time.Duration(ack.GetLostAfterMs()) * time.Millisecond
	if interval <= 0 {
		interval = defaultHeartbeat
	}
	w.log.WithFields(logrus.Fields{"worker": ack.GetWorkerId(), "heartbeat": interval, "rejoined": reconnect,
		"attempts": len(reg.Attempts), "outputs": len(reg.Outputs), "lost_after": lostAfter}).Info("registered")
	return interval, lostAfter, nil
}

// receive carries out the AM's messages until the stream ends.
func (w *worker) receive(ctx context.Context, stream ebbpb.Worker_ConnectClient) error {
	for {
		m, err := stream.Recv()
		if err != nil {
			w.mu.Lock()
			stopping := w.stopping
			w.mu.Unlock()
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case stopping && errors.Is(err, io.EOF):
				w.log.Info("AM closed the stream after Stop; exiting")
				return nil
			case errors.Is(err, io.EOF):
				return fmt.Errorf("%w: AM closed the stream without Stop", ErrStreamBroken)
			default:
				return fmt.Errorf("%w: %w", ErrStreamBroken, err)
			}
		}
		switch msg := m.GetMsg().(type) {
		case *ebbpb.AMMessage_Run:
			w.startAttempt(msg.Run)
		case *ebbpb.AMMessage_Inputs:
			w.attemptInputs(msg.Inputs)
		case *ebbpb.AMMessage_Kill:
			w.killAttempt(msg.Kill.GetAttemptId(), msg.Kill.GetReason())
		case *ebbpb.AMMessage_Commit:
			w.grantCommit(msg.Commit.GetAttemptId())
		case *ebbpb.AMMessage_DagDone:
			w.dagDone(msg.DagDone.GetDagId())
		case *ebbpb.AMMessage_Reinit:
			w.reinit(msg.Reinit)
		case *ebbpb.AMMessage_Credentials:
			// Never log the tokens themselves: they are secrets.
			if err := w.fss.updateCredentials(msg.Credentials.GetTokens()); err != nil {
				w.log.WithError(err).Error("keeping the old delegation tokens")
			} else {
				w.log.Info("fresh delegation tokens in place")
			}
		case *ebbpb.AMMessage_Stop:
			if !msg.Stop.GetGraceful() {
				w.log.WithField("reason", msg.Stop.GetReason()).Info("stopping now")
				return nil
			}
			w.log.WithField("reason", msg.Stop.GetReason()).Info("stopping gracefully: no new attempts")
			w.mu.Lock()
			w.stopping = true
			w.mu.Unlock()
		case *ebbpb.AMMessage_Registered:
			w.log.Warn("ignoring a second Registered")
		default:
			w.log.Warnf("ignoring unknown AM message %T", msg)
		}
	}
}

func (w *worker) reinit(r *ebbpb.Reinit) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.group = r.GetGroup()
	w.env = r.GetEnv()
	if r.GetMemoryMb() > 0 {
		w.memoryMB = r.GetMemoryMb()
	}
	w.log.WithFields(logrus.Fields{"group": w.group, "memory_mb": w.memoryMB}).Info("reinitialised")
}

// dagDone deletes everything the worker keeps for a DAG that has ended,
// killing any of its attempts that still run.
func (w *worker) dagDone(dagID string) {
	w.mu.Lock()
	var doomed []*attempt
	for _, a := range w.running {
		if a.req.GetDagId() == dagID {
			doomed = append(doomed, a)
		}
	}
	var dirs []string
	for id, d := range w.finished {
		if d == dagID {
			dirs = append(dirs, w.attemptDir(id))
			delete(w.finished, id)
		}
	}
	for id, f := range w.finals {
		if f.held.GetDagId() == dagID {
			delete(w.finals, id)
		}
	}
	w.mu.Unlock()
	w.outputs.dropDAG(dagID)
	for _, a := range doomed {
		a.kill(fmt.Errorf("%w: DAG %s ended", errKilled, dagID))
	}
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			w.log.WithError(err).Warn("removing attempt dir")
		}
	}
	w.log.WithFields(logrus.Fields{"dag": dagID, "removed": len(dirs)}).Info("DAG done")
}

func (w *worker) attemptDir(attemptID string) string {
	return filepath.Join(w.o.WorkDir, "attempts", attemptID)
}

// heartbeat tells the AM which attempts run and how much memory they use,
// and reports progress that changed since the last beat.
func (w *worker) heartbeat(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// A tick late by the AM's whole timeout: this worker was stopped
		// and the AM has lost it (fence.go); nothing more goes out.
		if err := w.lease.renew(time.Now()); err != nil {
			w.fenceOff(err)
			return
		}
		health := w.diskHealth()
		w.mu.Lock()
		hb := &ebbpb.Heartbeat{Unhealthy: health}
		list := make([]*attempt, 0, len(w.running))
		for id, a := range w.running {
			hb.RunningAttempts = append(hb.RunningAttempts, id)
			list = append(list, a)
		}
		out := w.out
		w.mu.Unlock()
		var rss int64
		for _, a := range list {
			rss += a.rss()
		}
		hb.UsedMemoryMb = rss >> 20
		out.send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Heartbeat{Heartbeat: hb}})
		for _, a := range list {
			a.reportProgress(out)
		}
	}
}

// killAll kills every running attempt with cause.
func (w *worker) killAll(cause error) {
	w.mu.Lock()
	list := make([]*attempt, 0, len(w.running))
	for _, a := range w.running {
		list = append(list, a)
	}
	w.mu.Unlock()
	for _, a := range list {
		a.kill(cause)
	}
}

// killAttempt kills an attempt the AM gave up on. Its memory is free for
// new attempts at once: the AM stopped counting it when it sent the kill
// and may already have placed another attempt here, which must not be
// refused (and counted as a task failure) while the killed process exits.
func (w *worker) killAttempt(id, reason string) {
	w.mu.Lock()
	a := w.running[id]
	if a != nil && !a.released {
		a.released = true
		w.usedMB -= a.req.GetMemoryMb()
	}
	w.mu.Unlock()
	if a == nil {
		w.log.WithField("attempt", id).Info("kill for an attempt that is not running; ignored")
		return
	}
	a.kill(fmt.Errorf("%w by the AM: %s", errKilled, reason))
}
