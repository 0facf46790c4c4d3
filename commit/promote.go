package commit

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// Promotion is crash-safe: every step leaves a state that the next call
// recognises from the file system alone, so an AM attempt that finds a
// promotion interrupted finishes exactly that promotion (Promote again) or
// undoes it (Abort), whichever its DAG's fate calls for. The steps:
//
//  1. The staged files are made ready inside the staging directory
//     S = <output>/_temporary/<id>: attempt leftovers dropped, and the
//     markers written there: _SUCCESS, and _ebb-commit-<id> naming the
//     staging id (both empty).
//  2. The whole output directory is renamed aside, to a hidden sibling
//     A = <parent>/.<name>.ebb-commit-<id>. This rename is the journal's
//     "started": from here on the promotion is finished, never redone.
//  3. A/_temporary/<id> is renamed to <output>: the visible switch, one
//     directory rename. Before it a reader sees the old output (or, for
//     the moment between 2 and 3, none); after it, the complete new output
//     with its _SUCCESS. Never a part of one.
//  4. A, with the old results and any other staging leftovers, is removed.
//
// The states, as Phase names them: nothing aside and no marker of ours
// (not started), A present and <output> absent (started), the id's marker
// in <output> (done; A may remain if step 4 was cut short). The marker is
// what makes a second Promote after a finished one a no-op: it never
// mistakes the new results for old ones.

// Step names the steps of a promotion, for Committer.AfterStep.
type Step string

// The steps, in order; see the list above.
const (
	StepPrepared Step = "prepared"
	StepAside    Step = "aside"
	StepSwitched Step = "switched"
	StepCleaned  Step = "cleaned"
)

// Steps lists every Step, in order.
var Steps = []Step{StepPrepared, StepAside, StepSwitched, StepCleaned}

// Phase is how far a DAG's promotion has gone, read from the file system.
type Phase int

const (
	// NotStarted: the output is as it was; the staged files are in
	// _temporary (or nothing was staged).
	NotStarted Phase = iota
	// Started: the old output is aside and the new one not yet in place.
	Started
	// Done: the new output and its _SUCCESS are in place.
	Done
)

func (p Phase) String() string {
	switch p {
	case NotStarted:
		return "not started"
	case Started:
		return "started"
	case Done:
		return "done"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// CommitMarker names the empty file that a promotion of staging id leaves
// in the output beside _SUCCESS, so that a later call knows the results
// are this DAG's own. Empty, as _SUCCESS is (Hadoop's own), and named
// with a leading underscore, so readers of the output (input formats that
// skip such names, and `hdfs dfs -cat out/*`) see nothing more than before.
func CommitMarker(id string) string { return "_ebb-commit-" + id }

// aside is where the output directory waits while its promotion switches.
// Hidden (a leading dot): Hadoop's and ebb's listers skip it, so a DAG
// reading the parent directory never reads it.
func aside(root, id string) string {
	return path.Join(path.Dir(root), "."+path.Base(root)+".ebb-commit-"+id)
}

// ConflictError: an interrupted promotion cannot go on because the output
// directory was made again while the old one was aside.
type ConflictError struct{ Output, Aside string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("output %s: an interrupted commit left the old output at %s, and %s was created since: "+
		"ebb touches neither; move one of them away and resubmit", e.Output, e.Aside, e.Output)
}

// CleanupError: the new output is committed and complete, but the old
// output moved aside could not be removed. The DAG succeeded.
type CleanupError struct {
	Aside string
	Err   error
}

func (e *CleanupError) Error() string {
	return fmt.Sprintf("the output is committed, but removing the old output at %s failed: %v", e.Aside, e.Err)
}

func (e *CleanupError) Unwrap() error { return e.Err }

// CommittedError: Abort found the promotion done; the new output stays.
type CommittedError struct{ Output string }

func (e *CommittedError) Error() string {
	return fmt.Sprintf("output %s was already committed by this DAG: its results stay", e.Output)
}

// objectCommit is the commit of stagingID into output when output is on
// an object store (an ObjectFS), else nil.
func (c *Committer) objectCommit(output, id string) (*objectCommit, error) {
	fsys, root, err := c.resolve(output)
	if err != nil {
		return nil, err
	}
	ofs, ok := fsys.(ObjectFS)
	if !ok {
		return nil, nil
	}
	return &objectCommit{fs: ofs, output: output, root: root, id: id, staging: path.Join(root, TempDir, id)}, nil
}

// promotion is one DAG's promotion over one file system.
type promotion struct {
	fsys                         FS
	output, root, id             string
	staging, aside, asideStaging string
}

func (c *Committer) promotion(output, id string) (*promotion, error) {
	fsys, root, err := c.resolve(output)
	if err != nil {
		return nil, err
	}
	a := aside(root, id)
	return &promotion{fsys: fsys, output: output, root: root, id: id,
		staging: path.Join(root, TempDir, id), aside: a, asideStaging: path.Join(a, TempDir, id)}, nil
}

// Phase reads how far the promotion of a DAG's staging id into output
// has gone (a recovering AM asks before it resumes the DAG).
func (c *Committer) Phase(output, stagingID string) (Phase, error) {
	if o, err := c.objectCommit(output, stagingID); o != nil || err != nil {
		if err != nil {
			return NotStarted, err
		}
		return o.phase()
	}
	_, ph, err := c.promotionAt(output, stagingID)
	return ph, err
}

// promotionAt is the promotion of stagingID into output and its phase.
func (c *Committer) promotionAt(output, stagingID string) (*promotion, Phase, error) {
	p, err := c.promotion(output, stagingID)
	if err != nil {
		return nil, NotStarted, err
	}
	ph, err := p.phase()
	return p, ph, err
}

func (p *promotion) phase() (Phase, error) {
	done, err := p.marked()
	if err != nil || done {
		return Done, err
	}
	asideExists, err := p.exists(p.aside)
	if err != nil || !asideExists {
		return NotStarted, err
	}
	rootExists, err := p.exists(p.root)
	if err != nil {
		return Started, err
	}
	if rootExists {
		return Started, &ConflictError{Output: p.output, Aside: p.aside}
	}
	return Started, nil
}

// marked says whether the output holds this promotion's marker.
func (p *promotion) marked() (bool, error) {
	return p.exists(path.Join(p.root, CommitMarker(p.id)))
}

func (p *promotion) exists(q string) (bool, error) {
	_, err := p.fsys.Stat(q)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", q, err)
	}
	return true, nil
}

// Promote publishes a succeeded DAG's staged files, as the steps above
// say, or finishes a promotion an earlier call (or AM attempt) began. With
// overwrite the old results are replaced; without, an output that gained
// results while the DAG ran is an *ExistsError and nothing is moved.
// Attempt-level leftovers (a _temporary inside the staging directory, from
// attempts killed while committing) are dropped, not published. An error
// other than *CleanupError means the new output is not in place; Abort
// then restores the old one.
func (c *Committer) Promote(output, stagingID string, overwrite bool) error {
	if o, err := c.objectCommit(output, stagingID); o != nil || err != nil {
		if err != nil {
			return err
		}
		return c.promoteObjects(o, overwrite)
	}
	p, ph, err := c.promotionAt(output, stagingID)
	if err != nil {
		return err
	}
	switch ph {
	case Done:
		return p.removeAside()
	case NotStarted:
		if err := p.prepare(overwrite); err != nil {
			return err
		}
		c.done(StepPrepared, output)
		if err := p.fsys.Rename(p.root, p.aside); err != nil {
			return fmt.Errorf("moving the output %s aside to %s: %w", output, p.aside, err)
		}
		c.done(StepAside, output)
	}
	if err := p.fsys.Rename(p.asideStaging, p.root); err != nil {
		return fmt.Errorf("putting the new output in place (%s to %s): %w", p.asideStaging, p.root, err)
	}
	c.done(StepSwitched, output)
	if err := p.removeAside(); err != nil {
		return err
	}
	c.done(StepCleaned, output)
	return nil
}

func (c *Committer) done(s Step, output string) {
	if c.after != nil {
		c.after(s, output)
	}
}

// prepare is step 1: it refuses results that appeared (without
// overwrite), drops attempt leftovers and writes the marker into staging.
func (p *promotion) prepare(overwrite bool) error {
	if err := p.fsys.MkdirAll(p.staging); err != nil {
		return fmt.Errorf("creating output %s: %w", p.output, err)
	}
	old, err := results(p.fsys, p.root)
	if err != nil {
		return fmt.Errorf("reading output %s: %w", p.output, err)
	}
	if len(old) > 0 && !overwrite {
		return &ExistsError{Output: p.output, Entries: old}
	}
	staged, err := p.fsys.ReadDir(p.staging)
	if err != nil {
		return fmt.Errorf("reading staged results %s: %w", p.staging, err)
	}
	if err := dropAttemptLeftovers(p.fsys, p.staging, staged); err != nil {
		return err
	}
	for _, name := range []string{CommitMarker(p.id), SuccessMarker} {
		marker := path.Join(p.staging, name)
		if err := p.fsys.WriteFile(marker, nil); err != nil {
			return fmt.Errorf("writing %s: %w", marker, err)
		}
	}
	return nil
}

func (p *promotion) removeAside() error {
	if err := p.fsys.RemoveAll(p.aside); err != nil {
		return &CleanupError{Aside: p.aside, Err: err}
	}
	return nil
}

// Abort removes a DAG's staging directory after it failed or was killed,
// then _temporary when nothing else is staged there, and the output
// directory itself when removeEmptyOutput is set (it did not exist before
// the DAG) and it is now empty. A promotion that was started and not
// finished is undone first: the old output comes back from aside, byte
// for byte. Results already in output are never touched; a promotion
// that is done cannot be aborted (*CommittedError).
func (c *Committer) Abort(output, stagingID string, removeEmptyOutput bool) error {
	if o, err := c.objectCommit(output, stagingID); o != nil || err != nil {
		if err != nil {
			return err
		}
		return c.abortObjects(o)
	}
	p, ph, err := c.promotionAt(output, stagingID)
	if err != nil {
		return err
	}
	switch ph {
	case Done:
		if err := p.removeAside(); err != nil {
			return err
		}
		return &CommittedError{Output: output}
	case Started:
		if err := p.fsys.Rename(p.aside, p.root); err != nil {
			return fmt.Errorf("putting the old output back (%s to %s): %w", p.aside, p.root, err)
		}
	}
	tmp := path.Join(p.root, TempDir)
	if err := p.fsys.RemoveAll(p.staging); err != nil {
		return fmt.Errorf("removing staged results %s: %w", p.staging, err)
	}
	if err := removeIfEmpty(p.fsys, tmp); err != nil {
		return err
	}
	if removeEmptyOutput {
		return removeIfEmpty(p.fsys, p.root)
	}
	return nil
}
