package commit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// The job commit on an object store, where there is no rename: sink
// attempts have uploaded their files to their final names as multipart
// uploads left pending (invisible), and each task's commit recorded its
// uploads in a TaskManifest under the staging area S. The steps:
//
//  1. journaled: the task manifests are read and merged into the job
//     manifest S/_job.json, with (overwrite) the old files the new output
//     does not replace. Results that appeared meanwhile are refused first
//     (without overwrite). Until this is written nothing visible changed.
//  2. withdrawn: an old _SUCCESS is deleted, so that from here on no
//     reader takes what it sees for a complete output.
//  3. completed: every upload in the job manifest is completed; each file
//     appears whole, at once. One no longer pending whose file is there
//     was completed by an earlier attempt.
//  4. pruned: the old files of step 1 are deleted, and every other upload
//     pending under the output (attempts that lost, crashed attempts) is
//     aborted.
//  5. succeeded: _SUCCESS is written, a JSON Success naming the staging id
//     and the files: the last object to appear.
//  6. cleaned: S is removed.
//
// Phases, read from the store alone: _SUCCESS naming this id is Done; the
// job manifest present is Started, which only goes forward (steps 2 to 6
// again are harmless: each is idempotent), since completing an upload over
// an old file cannot be undone; anything else is NotStarted, which Abort
// undoes by aborting every pending upload under the output.

// objectCommit is one DAG's commit over an object store.
type objectCommit struct {
	fs                        ObjectFS
	output, root, id, staging string
}

func (p *objectCommit) success() string { return path.Join(p.root, SuccessMarker) }
func (p *objectCommit) journal() string { return path.Join(p.staging, jobManifestName) }

func (p *objectCommit) phase() (Phase, error) {
	b, err := p.fs.ReadFile(p.success())
	switch {
	case err == nil:
		var s Success
		if json.Unmarshal(b, &s) == nil && s.StagingID == p.id {
			return Done, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return NotStarted, fmt.Errorf("reading %s: %w", p.success(), err)
	}
	if _, err := p.fs.Stat(p.journal()); err == nil {
		return Started, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return NotStarted, fmt.Errorf("reading %s: %w", p.journal(), err)
	}
	return NotStarted, nil
}

func (c *Committer) promoteObjects(p *objectCommit, overwrite bool) error {
	ph, err := p.phase()
	if err != nil {
		return err
	}
	var m *JobManifest
	switch ph {
	case Done:
		return p.cleanup()
	case NotStarted:
		if m, err = p.writeJournal(overwrite); err != nil {
			return err
		}
		c.done(StepJournaled, p.output)
	case Started:
		if m, err = p.readJournal(); err != nil {
			return err
		}
	}
	return c.finishObjects(p, m)
}

// writeJournal is step 1.
func (p *objectCommit) writeJournal(overwrite bool) (*JobManifest, error) {
	if !overwrite {
		old, err := results(p.fs, p.root)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading output %s: %w", p.output, err)
		}
		if len(old) > 0 {
			return nil, &ExistsError{Output: p.output, Entries: old}
		}
	}
	staged, err := p.fs.Walk(p.staging)
	if err != nil {
		return nil, fmt.Errorf("reading staged results %s: %w", p.staging, err)
	}
	m := &JobManifest{StagingID: p.id}
	replaced := map[string]bool{}
	for _, f := range staged {
		if !strings.HasSuffix(f, PendingSuffix) {
			continue
		}
		b, err := p.fs.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading the task commit %s: %w", f, err)
		}
		var tm TaskManifest
		if err := json.Unmarshal(b, &tm); err != nil {
			return nil, fmt.Errorf("the task commit %s is not a task manifest: %w", f, err)
		}
		for _, u := range tm.Uploads {
			if !under(p.root, u.Path) || inTemp(p.root, u.Path) {
				return nil, fmt.Errorf("the task commit %s names %s, which is not in the output %s", f, u.Path, p.output)
			}
			if replaced[u.Path] {
				return nil, fmt.Errorf("the task commit %s names %s, which another task commit names too", f, u.Path)
			}
			replaced[u.Path] = true
			m.Uploads = append(m.Uploads, u)
		}
	}
	sort.Slice(m.Uploads, func(i, j int) bool { return m.Uploads[i].Path < m.Uploads[j].Path })
	if overwrite {
		old, err := p.fs.Walk(p.root)
		if err != nil {
			return nil, fmt.Errorf("reading output %s: %w", p.output, err)
		}
		for _, f := range old {
			if !inTemp(p.root, f) && !replaced[f] && f != p.success() {
				m.Delete = append(m.Delete, f)
			}
		}
	}
	if err := p.fs.WriteFile(p.journal(), marshal(m)); err != nil {
		return nil, fmt.Errorf("writing the commit journal %s: %w", p.journal(), err)
	}
	return m, nil
}

func (p *objectCommit) readJournal() (*JobManifest, error) {
	b, err := p.fs.ReadFile(p.journal())
	if err != nil {
		return nil, fmt.Errorf("reading the commit journal %s: %w", p.journal(), err)
	}
	var m JobManifest
	if err := json.Unmarshal(b, &m); err != nil || m.StagingID != p.id {
		return nil, fmt.Errorf("the commit journal %s is not this commit's (%s): move it away and resubmit", p.journal(), p.id)
	}
	return &m, nil
}

// finishObjects is steps 2 to 6, from a written journal.
func (c *Committer) finishObjects(p *objectCommit, m *JobManifest) error {
	if err := p.fs.Remove(p.success()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("withdrawing the old %s: %w", p.success(), err)
	}
	c.done(StepWithdrawn, p.output)
	ours := map[string]bool{}
	var files []string
	for _, u := range m.Uploads {
		ours[u.UploadID] = true
		files = append(files, relTo(p.root, u.Path))
		err := p.fs.Complete(u)
		if errors.Is(err, fs.ErrNotExist) {
			// Completed by an earlier attempt of this commit, if the
			// file is there.
			if _, serr := p.fs.Stat(u.Path); serr == nil {
				continue
			}
		}
		if err != nil {
			return fmt.Errorf("completing the upload of %s: %w", u.Path, err)
		}
	}
	c.done(StepCompleted, p.output)
	for _, f := range m.Delete {
		if err := p.fs.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("deleting the old %s: %w", f, err)
		}
	}
	if err := p.abortPending(ours); err != nil {
		return err
	}
	c.done(StepPruned, p.output)
	s := Success{Committer: SuccessCommitter, StagingID: p.id, Files: files}
	if s.Files == nil {
		s.Files = []string{}
	}
	if err := p.fs.WriteFile(p.success(), marshal(s)); err != nil {
		return fmt.Errorf("writing %s: %w", p.success(), err)
	}
	c.done(StepSucceeded, p.output)
	if err := p.cleanup(); err != nil {
		return err
	}
	c.done(StepCleaned, p.output)
	return nil
}

// abortPending aborts every upload pending under the output but those in
// keep (by upload id).
func (p *objectCommit) abortPending(keep map[string]bool) error {
	pending, err := p.fs.Pending(p.root)
	if err != nil {
		return fmt.Errorf("listing the uploads pending under %s: %w", p.output, err)
	}
	for _, u := range pending {
		if keep[u.UploadID] {
			continue
		}
		if err := p.fs.AbortUpload(u); err != nil {
			return fmt.Errorf("aborting the pending upload of %s: %w", u.Path, err)
		}
	}
	return nil
}

// cleanup aborts what is still pending under the output and removes the
// staging area, after a commit is done: the output is complete either way.
func (p *objectCommit) cleanup() error {
	if err := p.abortPending(nil); err != nil {
		return &CleanupError{Aside: p.staging, Err: err}
	}
	if err := p.fs.RemoveAll(p.staging); err != nil {
		return &CleanupError{Aside: p.staging, Err: err}
	}
	return nil
}

// abortObjects undoes a DAG's staged uploads; a commit that was started
// is finished instead (*CommittedError), as its journal says.
func (c *Committer) abortObjects(p *objectCommit) error {
	ph, err := p.phase()
	if err != nil {
		return err
	}
	switch ph {
	case Done:
		if err := p.cleanup(); err != nil {
			return err
		}
		return &CommittedError{Output: p.output}
	case Started:
		m, err := p.readJournal()
		if err != nil {
			return err
		}
		if err := c.finishObjects(p, m); err != nil {
			var cle *CleanupError
			if !errors.As(err, &cle) {
				return fmt.Errorf("the commit had started, so it is finished rather than undone, and that failed: %w", err)
			}
		}
		return &CommittedError{Output: p.output}
	}
	// The task manifests name uploads of attempts that committed; the
	// listing finds those of attempts that did not get that far.
	staged, err := p.fs.Walk(p.staging)
	if err != nil {
		return fmt.Errorf("reading staged results %s: %w", p.staging, err)
	}
	for _, f := range staged {
		if !strings.HasSuffix(f, PendingSuffix) {
			continue
		}
		var tm TaskManifest
		if b, err := p.fs.ReadFile(f); err == nil && json.Unmarshal(b, &tm) == nil {
			for _, u := range tm.Uploads {
				if err := p.fs.AbortUpload(u); err != nil {
					return fmt.Errorf("aborting the pending upload of %s: %w", u.Path, err)
				}
			}
		}
	}
	if err := p.abortPending(nil); err != nil {
		return err
	}
	if err := p.fs.RemoveAll(p.staging); err != nil {
		return fmt.Errorf("removing staged results %s: %w", p.staging, err)
	}
	return nil
}
