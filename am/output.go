package am

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/dag"
)

// OutputCommitter is how the AM commits DAG outputs (package commit: stage,
// then promote on success or abort otherwise). Its methods do IO; the AM
// calls them off the loop.
type OutputCommitter interface {
	// Check refuses an output that may not be written (exists: it was there).
	Check(output string, overwrite bool) (exists bool, err error)
	Promote(output, stagingID string, overwrite bool) error
	Abort(output, stagingID string, removeEmptyOutput bool) error
	// Phase says how far a promotion an earlier AM attempt began has gone.
	Phase(output, stagingID string) (commit.Phase, error)
}

var _ OutputCommitter = (*commit.Committer)(nil)

// outputPlan is how one DAG's results reach its output.
type outputPlan struct {
	output    string
	stagingID string
	overwrite bool
	// existed: the output directory was there at submission, so an abort
	// leaves it even when empty.
	existed bool
}

// outputKey identifies an output location for "in use" checks.
func outputKey(output string) string {
	if p, ok := commit.LocalPath(output); ok && !strings.HasPrefix(output, "file://") {
		return filepath.Clean(p)
	}
	return strings.TrimSuffix(output, "/")
}

// defaultOutput names the output of a DAG that gives none: its name, its
// id and its staging id under the AM's output root. The DAG id alone is
// not enough: ids restart with every AM (an application's DAG ids are
// dag_0001, ... again in the next application, and in the next AM attempt
// when recovery is off), and a name plus a clock reading collided under
// many clients submitting the same file at once. The staging id is 64
// random bits, fresh for every submission.
func defaultOutput(root, name, dagID, stagingID string) string {
	return fmt.Sprintf("%s/%s-%s-%s", root, name, dagID, stagingID)
}

// OutputInUseError: another DAG of this AM is writing the output.
type OutputInUseError struct{ Output, DAG string }

func (e *OutputInUseError) Error() string {
	return fmt.Sprintf("output %s is being written by DAG %s: wait for it to end, or choose another output", e.Output, e.DAG)
}

// checkOutput decides before submission whether a DAG may write to
// output (IO: called off the loop).
func (a *AM) checkOutput(spec *dag.Spec, output string, overwrite bool) (existed bool, err error) {
	if id, busy := a.outputUser(output); busy {
		return false, &OutputInUseError{Output: output, DAG: id}
	}
	if overwrite {
		for _, v := range spec.Vertices {
			for _, in := range v.Inputs {
				if within(in, output) {
					return false, fmt.Errorf("vertex %s reads %s from the output %s it would overwrite: choose another output", v.Name, in, output)
				}
			}
		}
	}
	// A NameNode that does not answer at submission is waited out as at
	// the promotion.
	err = a.commitRetry("checking the output "+output, func() (err error) {
		existed, err = a.committer.Check(output, overwrite)
		return err
	})
	return existed, err
}

// within says whether location p is output or lies under it.
func within(p, output string) bool {
	k, o := outputKey(p), outputKey(output)
	return k == o || strings.HasPrefix(k, o+"/")
}

func (a *AM) outputUser(output string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, ok := a.outputUsers[outputKey(output)]
	return id, ok
}

// claimOutput records that DAG id writes to plan.output until settled.
func (a *AM) claimOutput(id string, plan outputPlan) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.outputUsers[outputKey(plan.output)] = id
	a.outputPlans[id] = plan
}

// settleOutput promotes a succeeded DAG's results, or removes a failed or
// killed DAG's staged files, and returns the status clients are told: a
// DAG whose promotion failed did not succeed.
func (a *AM) settleOutput(s core.DAGStatus, plan outputPlan) core.DAGStatus {
	if s.State == core.DAGSucceeded {
		err := a.commitRetry("promoting the output "+plan.output, func() error {
			return a.committer.Promote(plan.output, plan.stagingID, plan.overwrite)
		})
		var cle *commit.CleanupError
		if errors.As(err, &cle) {
			// The new output is whole and in place: the DAG succeeded.
			a.log.Warnf("DAG %s (%s): %v", s.ID, s.Name, err)
			err = nil
		}
		if err == nil {
			a.log.Infof("DAG %s (%s): output committed to %s", s.ID, s.Name, plan.output)
			return s
		}
		s.State = core.DAGFailed
		s.Diagnostics = fmt.Sprintf("every task succeeded, but committing the output failed: %v", err)
		var ee *commit.ExistsError
		if errors.As(err, &ee) {
			s.Diagnostics = fmt.Sprintf("every task succeeded, but the output was written by someone else meanwhile, so nothing was committed: %v", err)
		}
		a.log.Errorf("DAG %s (%s): %s", s.ID, s.Name, s.Diagnostics)
	}
	if err := a.commitRetry("removing the staged output of "+plan.output, func() error {
		return a.committer.Abort(plan.output, plan.stagingID, !plan.existed)
	}); err != nil {
		a.log.Warnf("DAG %s (%s): removing its staged output: %v", s.ID, s.Name, err)
		s.Diagnostics += fmt.Sprintf(" (and removing its staged files under %s failed: %v)", commit.Staging(plan.output, plan.stagingID), err)
	}
	return s
}

// commitRetry runs f, a check, a promotion or an abort, through
// Options.CommitRetry.
func (a *AM) commitRetry(what string, f func() error) error {
	if a.opts.CommitRetry == nil {
		return f()
	}
	return a.opts.CommitRetry(what, f)
}

// abandonOutputs removes the staged files of the DAGs still running when
// the AM stops (killed, told to by the RM, idle): nobody will promote them,
// and their outputs stay as they were. The workers are gone by now (the
// loop closed the world), so no attempt commits behind it.
func (a *AM) abandonOutputs() {
	if r := a.supersededBy(); r != "" {
		a.log.Warnf("this AM attempt is superseded (%s): the staged outputs of its unfinished DAGs stay for the next attempt", r)
		return
	}
	a.mu.Lock()
	plans := a.outputPlans
	a.outputPlans, a.outputUsers = map[string]outputPlan{}, map[string]string{}
	a.mu.Unlock()
	for id, plan := range plans {
		if err := a.committer.Abort(plan.output, plan.stagingID, !plan.existed); err != nil {
			a.log.Warnf("DAG %s did not end before the AM: removing its staged output: %v", id, err)
			continue
		}
		a.log.Infof("DAG %s did not end before the AM: its staged output under %s is removed", id, commit.Staging(plan.output, plan.stagingID))
	}
}

// view is a DAG's status as clients see it: a DAG the core has finished
// but whose output is still being committed is RUNNING, and once settled
// its final status is the one after committing.
func (a *AM) view(s core.DAGStatus) core.DAGStatus {
	if !s.State.Done() {
		return s
	}
	a.mu.Lock()
	e, ok := a.ended[s.ID]
	_, settling := a.outputPlans[s.ID]
	a.mu.Unlock()
	if ok {
		return e
	}
	if !settling {
		// Settled long ago (or never had an output): the core's status is
		// the final one (DAGSettled).
		return s
	}
	if s.State == core.DAGSucceeded {
		s.Diagnostics = "every task succeeded; committing the output to " + s.Output
	} else {
		s.Diagnostics = fmt.Sprintf("ending (%s): removing its staged output", s.State)
	}
	s.State = core.DAGRunning
	return s
}

// CommitStepLog returns a commit.Committer step hook that logs each step of
// every promotion (the journal an operator reads after a crash) and, when
// holdAfter names a step and this is the application's first AM attempt,
// stops the calling goroutine for good after that step of the first
// promotion: ebb.fault.commit.hold.after, so that a crash test can kill -9
// the AM exactly there. Later attempts never hold, or recovery would too.
func CommitStepLog(log *logrus.Logger, holdAfter string, attempt int) func(commit.Step, string) {
	var mu sync.Mutex
	held := false
	return func(step commit.Step, output string) {
		log.Infof("commit of %s: %s", output, step)
		mu.Lock()
		hold := !held && attempt == 1 && string(step) == holdAfter
		held = held || hold
		mu.Unlock()
		if hold {
			log.Warnf("commit held after %s (ebb.fault.commit.hold.after): this AM attempt stops here until it is killed", step)
			select {}
		}
	}
}
