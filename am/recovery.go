package am

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/recoverylog"
)

// Recovery is the AM's recovery log: every accepted DAG, every task that
// succeeded and every DAG that ended go to Recorder, so that a new AM
// attempt can resume (Recover).
type Recovery struct {
	Recorder *recovery.Recorder
	// Conf is the AM's effective configuration, kept with each DAG.
	Conf map[string]string
}

// recordAccepted queues a DAG's record (on the loop goroutine).
func (a *AM) recordAccepted(id string, r SubmitRequest, sub core.Submission, plan outputPlan, now time.Time) (uint64, error) {
	if a.opts.Recovery == nil {
		return 0, nil
	}
	rec := &recoverylog.DAGAccepted{DAG: id, SpecName: specName(r), Spec: r.Spec, BaseDir: r.BaseDir, Output: sub.Output,
		Client: sub.Client, Conf: a.opts.Recovery.Conf, SubmitUnixMs: now.UnixMilli()}
	if sub.Output != "" {
		rec.StagingID, rec.Overwrite, rec.Existed = plan.stagingID, plan.overwrite, plan.existed
	}
	if len(sub.Splits) > 0 {
		rec.Splits = map[string][][]recoverylog.Split{}
		for v, tasks := range sub.Splits {
			for _, ss := range tasks {
				var out []recoverylog.Split
				for _, s := range ss {
					out = append(out, recoverylog.Split{Path: s.Path, Offset: s.Offset, Length: s.Length, RecordLength: s.RecordLength})
				}
				rec.Splits[v] = append(rec.Splits[v], out)
			}
		}
	}
	return a.opts.Recovery.Recorder.Add(recoverylog.Record{DAGAccepted: rec})
}

// syncAccepted waits until the DAG's record is durable; a DAG that cannot
// be made durable is killed and refused, never acknowledged and lost.
func (a *AM) syncAccepted(ctx context.Context, id string, ticket uint64) error {
	if a.opts.Recovery == nil {
		return nil
	}
	if err := a.opts.Recovery.Recorder.Sync(ctx, ticket); err != nil {
		reason := fmt.Sprintf("its recovery record could not be written: %v", err)
		kctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, kerr := a.loop.Ask(kctx, core.DAGKillRequested{ID: id, Reason: reason}); kerr != nil {
			a.log.Warnf("killing DAG %s: %v", id, kerr)
		}
		return fmt.Errorf("DAG %s refused: %s", id, reason)
	}
	return nil
}

// recordTasks runs on the loop goroutine; recordEnded where a DAG's output
// was settled.
func (a *AM) recordTasks(ts []core.TaskDone) {
	recs := make([]recoverylog.Record, 0, len(ts))
	for _, t := range ts {
		var cs []recoverylog.Counter
		for _, c := range t.Counters {
			cs = append(cs, recoverylog.Counter{Group: c.Group, Name: c.Name, Value: c.Value})
		}
		recs = append(recs, recoverylog.Record{TaskSucceeded: &recoverylog.TaskSucceeded{
			DAG: t.DAG, Vertex: t.Vertex, Task: t.Task, Attempt: t.Attempt, Worker: t.Worker, Counters: cs}})
	}
	a.record(recs...)
}

func (a *AM) recordEnded(s core.DAGStatus) {
	a.record(recoverylog.Record{DAGEnded: &recoverylog.DAGEnded{DAG: s.ID, State: s.State.String(),
		Diagnostics: s.Diagnostics, FinishUnixMs: s.Finish.UnixMilli()}})
}

func (a *AM) record(recs ...recoverylog.Record) {
	if _, err := a.opts.Recovery.Recorder.Add(recs...); err != nil {
		a.log.Errorf("recovery log: %v", err)
	}
}

// Recover resumes the DAGs of an earlier attempt from its recovery log.
// Call it before Run.
func (a *AM) Recover(records []recoverylog.Record, o core.RecoverOptions) error {
	dags, warns := RecoveredDAGs(records, a.opts.DefaultFS)
	for _, w := range warns {
		a.log.Warn("recovery: " + w)
	}
	if len(dags) == 0 {
		return nil
	}
	plans := recoveredPlans(records)
	// A promotion the last attempt began is finished (or undone) before
	// anything else: its DAG has ended, whatever the log says.
	a.settleInterruptedCommits(dags, plans)
	// The DAGs that go on write their outputs as planned at submission.
	for id, plan := range plans {
		a.claimOutput(id, plan)
	}
	// The actions this causes (logs, DAGs failed when recovery is off)
	// are carried out by the loop's first round.
	if r := a.loop.Prime(core.DAGsRecovered{DAGs: dags, Options: o}); r.Err != nil {
		return r.Err
	}
	// The DAGs that ended before are settled: clients see them as they
	// ended.
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range dags {
		if ans := PrimeQuery(a.loop, core.DAGQuery{ID: d.ID}); ans.Known && d.Ended {
			a.noteEnded(ans.Status)
		}
	}
	return nil
}

// settleInterruptedCommits looks at the output of every recovered DAG that
// the log does not show ended. A promotion that was started (the last
// attempt died while committing) is finished — the DAG succeeded, since
// only a succeeded DAG is promoted — or, when it cannot be, undone, the
// old output restored and the DAG failed; a promotion that was done (the
// attempt died before the DAG's end record was durable) is left as it is
// and the DAG succeeded. Either way the DAG is marked ended here, its end
// recorded, and its plan dropped so that nothing promotes or aborts it
// again.
func (a *AM) settleInterruptedCommits(dags []core.RecoveredDAG, plans map[string]outputPlan) {
	for i := range dags {
		d := &dags[i]
		plan, ok := plans[d.ID]
		if d.Ended || !ok {
			continue
		}
		ph, err := a.committer.Phase(plan.output, plan.stagingID)
		if err == nil && ph == commit.NotStarted {
			continue
		}
		d.Ended, d.State, d.Finish, d.Diagnostics = true, core.DAGSucceeded, time.Now(), ""
		if err == nil {
			err = a.committer.Promote(plan.output, plan.stagingID, plan.overwrite)
			var cle *commit.CleanupError
			if errors.As(err, &cle) {
				a.log.Warnf("recovery: DAG %s: %v", d.ID, err)
				err = nil
			}
		}
		if err != nil {
			d.State = core.DAGFailed
			d.Diagnostics = fmt.Sprintf("the previous AM attempt died while committing the output, and finishing that commit failed: %v", err)
			var conflict *commit.ConflictError
			if !errors.As(err, &conflict) {
				if aerr := a.committer.Abort(plan.output, plan.stagingID, !plan.existed); aerr != nil {
					d.Diagnostics += fmt.Sprintf(" (and restoring the old output failed: %v)", aerr)
				}
			}
		}
		a.log.Infof("recovery: DAG %s: the previous AM attempt's commit (%s) of %s is settled: %s %s",
			d.ID, ph, plan.output, d.State, d.Diagnostics)
		delete(plans, d.ID)
		a.recordEnded(core.DAGStatus{ID: d.ID, State: d.State, Diagnostics: d.Diagnostics, Finish: d.Finish})
	}
}

// recoveredPlans are the output plans of the DAGs the log accepted and did
// not see end.
func recoveredPlans(records []recoverylog.Record) map[string]outputPlan {
	plans := map[string]outputPlan{}
	for _, r := range records {
		switch {
		case r.DAGAccepted != nil && r.DAGAccepted.Output != "" && r.DAGAccepted.StagingID != "":
			x := r.DAGAccepted
			plans[x.DAG] = outputPlan{output: x.Output, stagingID: x.StagingID, overwrite: x.Overwrite, existed: x.Existed}
		case r.DAGEnded != nil:
			delete(plans, r.DAGEnded.DAG)
		}
	}
	return plans
}

// RecoveredDAGs turns the log's records into the Core's recovered DAGs,
// in the order they were accepted (hdfs:/// paths made whole on defaultFS,
// as Submit did); warns lists records it could not use.
func RecoveredDAGs(records []recoverylog.Record, defaultFS string) ([]core.RecoveredDAG, []string) {
	var order []string
	byID := map[string]*core.RecoveredDAG{}
	var warns []string
	for _, r := range records {
		switch {
		case r.DAGAccepted != nil:
			x := r.DAGAccepted
			spec, _, err := resolveSpec(SubmitRequest{Spec: x.Spec, SpecName: x.SpecName, BaseDir: x.BaseDir}, defaultFS)
			if err != nil {
				warns = append(warns, fmt.Sprintf("DAG %s: its spec no longer reads: %v", x.DAG, err))
				continue
			}
			sub := core.Submission{Spec: spec, Output: x.Output, Client: x.Client}
			if x.Output != "" && x.StagingID != "" {
				sub.Staging = commit.Staging(x.Output, x.StagingID)
			}
			if len(x.Splits) > 0 {
				sub.Splits = map[string][][]core.Split{}
				for v, tasks := range x.Splits {
					for _, ss := range tasks {
						var out []core.Split
						for _, s := range ss {
							out = append(out, core.Split{Path: s.Path, Offset: s.Offset, Length: s.Length, RecordLength: s.RecordLength})
						}
						sub.Splits[v] = append(sub.Splits[v], out)
					}
				}
			}
			if _, dup := byID[x.DAG]; !dup {
				order = append(order, x.DAG)
			}
			byID[x.DAG] = &core.RecoveredDAG{ID: x.DAG, Submission: sub, Submit: time.UnixMilli(x.SubmitUnixMs)}
		case r.TaskSucceeded != nil:
			x := r.TaskSucceeded
			d, ok := byID[x.DAG]
			if !ok {
				warns = append(warns, fmt.Sprintf("task %s of unknown DAG %s", x.Attempt, x.DAG))
				continue
			}
			var cs []core.Counter
			for _, c := range x.Counters {
				cs = append(cs, core.Counter{Group: c.Group, Name: c.Name, Value: c.Value})
			}
			d.Succeeded = append(d.Succeeded, core.RecoveredTask{Vertex: x.Vertex, Task: x.Task, Attempt: x.Attempt, Worker: x.Worker, Counters: cs})
		case r.DAGEnded != nil:
			x := r.DAGEnded
			d, ok := byID[x.DAG]
			if !ok {
				warns = append(warns, fmt.Sprintf("end of unknown DAG %s", x.DAG))
				continue
			}
			st, ok := core.ParseDAGState(x.State)
			if !ok {
				st = core.DAGFailed
			}
			d.Ended, d.State, d.Diagnostics, d.Finish = true, st, x.Diagnostics, time.UnixMilli(x.FinishUnixMs)
		}
	}
	out := make([]core.RecoveredDAG, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out, warns
}
