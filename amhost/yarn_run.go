package amhost

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/dag"
)

// Run serves until the DAG ends (or, in a session, until it has been idle
// too long), a signal (ctx) or the RM's shutdown order, and returns the
// final status.
func (y *YarnAM) Run(ctx context.Context) (yarn.FinalStatus, string) {
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- y.a.Run(runCtx) }()
	stop := func(s yarn.FinalStatus, diag string) (yarn.FinalStatus, string) {
		y.a.Stop(diag)
		// The loop closed the world: workers stopped, containers released.
		if err := <-done; err != nil {
			y.log.Warnf("ebb am: %v", err)
		}
		return s, diag
	}
	session := y.c.Bool("mr3.am.session.mode")
	if y.o.DAGPath != "" {
		st, diag, ok := y.runDAG(ctx, done)
		if !ok {
			return stop(yarn.Killed, diag)
		}
		if !session {
			return stop(st, diag)
		}
	}
	return stop(y.serveSession(ctx, done))
}

// serveSession serves a session until it has been idle for
// ebb.session.idle.timeout.secs (the Core says since when: IdleSince), a
// signal or the AM's own end.
func (y *YarnAM) serveSession(ctx context.Context, done chan error) (yarn.FinalStatus, string) {
	idleMax := y.c.Duration("ebb.session.idle.timeout.secs")
	lastBusy := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			y.log.Warn("ebb am: SIGTERM: stopping the workers and unregistering")
			return yarn.Killed, "the AM was terminated (SIGTERM)"
		case err := <-done:
			done <- err
			return yarn.Killed, "the AM stopped: " + y.stopReason(err)
		case now := <-t.C:
			act, err := am.Query(ctx, y.a.Loop(), core.ActivityQuery{})
			if err != nil {
				continue // the loop ended or a signal came: the next select says which
			}
			lastBusy = act.IdleSince(now, lastBusy)
			if idleMax > 0 && now.Sub(lastBusy) >= idleMax {
				return yarn.Succeeded, fmt.Sprintf("session idle for %s (ebb.session.idle.timeout.secs)", now.Sub(lastBusy).Round(time.Second))
			}
		}
	}
}

func (y *YarnAM) stopReason(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ordered by the ResourceManager"
}

// runDAG submits the DAG the AM was started with and waits for its end.
// ok is false when the AM was stopped first.
func (y *YarnAM) runDAG(ctx context.Context, done chan error) (yarn.FinalStatus, string, bool) {
	id, diag := y.startDAG(ctx)
	if id == "" {
		return yarn.Failed, diag, true
	}
	type result struct {
		s   core.DAGStatus
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := y.a.WaitDAG(ctx, id)
		res <- result{s, err}
	}()
	select {
	case r := <-res:
		if r.err != nil {
			y.log.Warn("ebb am: SIGTERM: stopping the workers and unregistering")
			return yarn.Killed, "the AM was terminated (SIGTERM)", false
		}
		st, diag := y.ended(r.s)
		return st, diag, true
	case err := <-done:
		done <- err
		return yarn.Killed, "the AM stopped: " + y.stopReason(err), false
	}
}

// startDAG submits the application's DAG, or resumes it under its own id
// when an earlier attempt accepted it; an empty id comes with why not.
func (y *YarnAM) startDAG(ctx context.Context) (id, diag string) {
	spec, err := os.ReadFile(y.o.DAGPath)
	if err != nil {
		return "", err.Error()
	}
	name := y.o.DAGName
	if name == "" {
		name = y.o.DAGPath
	}
	if err := checkFits(name, spec, y.world.Max()); err != nil {
		y.log.Errorf("ebb am: %v", err)
		return "", err.Error()
	}
	if len(y.resumed) > 0 {
		y.log.Infof("ebb am: resuming DAG %s of the earlier attempt", y.resumed[0])
		return y.resumed[0], ""
	}
	id, err = y.a.Submit(ctx, am.SubmitRequest{Spec: spec, SpecName: name, Output: y.o.Output, Overwrite: y.o.Overwrite, Client: "ebb submit"})
	if err != nil {
		y.log.Errorf("ebb am: %v", err)
		return "", err.Error()
	}
	return id, ""
}

// ended is the application's final status after its DAG s ended; the
// diagnostics are the client's last line: they carry the counts.
func (y *YarnAM) ended(s core.DAGStatus) (yarn.FinalStatus, string) {
	y.log.Infof("ebb am: DAG %s (%s) %s after %s: %s", s.ID, s.Name, s.State, s.Finish.Sub(s.Submit).Round(time.Millisecond), s.Diagnostics)
	counts := fmt.Sprintf("%d/%d tasks, %d failed attempts, %s", s.Succeeded, s.TotalTasks, s.Failed, s.Finish.Sub(s.Submit).Round(time.Millisecond))
	switch s.State {
	case core.DAGSucceeded:
		return yarn.Succeeded, fmt.Sprintf("DAG %s (%s) succeeded (%s); output %s", s.ID, s.Name, counts, s.Output)
	case core.DAGKilled:
		return yarn.Killed, fmt.Sprintf("DAG %s (%s) killed (%s): %s", s.ID, s.Name, counts, s.Diagnostics)
	default:
		return yarn.Failed, fmt.Sprintf("DAG %s (%s) failed (%s): %s", s.ID, s.Name, counts, s.Diagnostics)
	}
}

// checkFits fails a DAG whose workers cannot exist on this cluster: a
// worker container larger than yarn.scheduler.maximum-allocation-mb would
// be asked for forever.
func checkFits(name string, data []byte, max yarn.Resource) error {
	spec, err := dag.Parse(name, data)
	if err != nil {
		return err
	}
	if max.MemoryMB <= 0 {
		return nil
	}
	for _, v := range spec.Vertices {
		if v.MemoryMB > max.MemoryMB {
			return fmt.Errorf("DAG %s: vertex %s asks %d MB per task, more than the cluster's largest container (yarn.scheduler.maximum-allocation-mb=%d)",
				spec.Name, v.Name, v.MemoryMB, max.MemoryMB)
		}
	}
	if spec.Group.WorkerMemoryMB > max.MemoryMB {
		return fmt.Errorf("DAG %s: container group %s asks %d MB workers, more than the cluster's largest container (yarn.scheduler.maximum-allocation-mb=%d)",
			spec.Name, spec.Group.Name, spec.Group.WorkerMemoryMB, max.MemoryMB)
	}
	return nil
}

// Finish unregisters with the final status and then removes the staging
// directory. An AM that could not unregister leaves it unless this is the
// last attempt: the RM may start another attempt, which needs the binary,
// the configuration and the secret again (and `ebb submit`, `ebb clean`
// remove it once the application has ended).
func (y *YarnAM) Finish(status yarn.FinalStatus, diag string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every file was closed by the call that wrote it; the connection
	// holds nothing more.
	defer func() { _ = y.fs.Close() }()
	y.stopRefresh()
	if err := y.rec.Close(); err != nil {
		y.log.Warnf("ebb am: %v", err)
	}
	if err := y.world.Finish(ctx, status, diag); err != nil {
		y.log.Errorf("ebb am: %v", err)
		if y.last {
			if rerr := y.fs.RemoveAll(y.staging); rerr != nil {
				y.log.Warnf("ebb am: %v", rerr)
			}
		}
		return err
	}
	if err := y.fs.RemoveAll(y.staging); err != nil {
		y.log.Warnf("ebb am: %v", err)
	}
	y.log.Infof("ebb am: finished %s after %s", status, time.Since(y.start).Round(time.Millisecond))
	return nil
}
