package commit

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// ObjectFS is an object store (S3) as the committer sees it: no directory
// renames, and a file that becomes visible whole, at once, when its
// multipart upload is completed. On such a store sink attempts upload
// their files straight to their final names and leave the uploads pending;
// the task commit records them (TaskManifest) and the job commit completes
// them (object.go's protocol; see docs/s3.md). Directories are implied by
// the names of files: MkdirAll does nothing and Rename is never called.
type ObjectFS interface {
	FS
	ReadFile(p string) ([]byte, error)
	// Walk lists every file under dir, at any depth; a missing dir is empty.
	Walk(dir string) ([]string, error)
	// Pending lists the multipart uploads begun under dir and neither
	// completed nor aborted (Path and UploadID only).
	Pending(dir string) ([]Upload, error)
	// Complete completes an upload from its parts. One that is no longer
	// pending is an error matching fs.ErrNotExist.
	Complete(u Upload) error
	// AbortUpload drops a pending upload and its parts; one already gone
	// is fine.
	AbortUpload(u Upload) error
}

// Upload is a multipart upload to the file at Path, not yet completed.
type Upload struct {
	Path     string `json:"path"`
	UploadID string `json:"upload_id"`
	Parts    []Part `json:"parts,omitempty"`
	Size     int64  `json:"size"`
}

// Part is one uploaded part: its number and the ETag the store gave it.
type Part struct {
	Number int32  `json:"number"`
	ETag   string `json:"etag"`
}

// TaskManifest is a sink task's commit on an object store: the uploads its
// committed attempt left pending. One per task (TaskManifestPath): a later
// attempt of the task replaces it whole, in one PUT.
type TaskManifest struct {
	Attempt string   `json:"attempt"`
	Uploads []Upload `json:"uploads"`
}

// PendingSuffix ends the names of task manifests.
const PendingSuffix = ".pending"

// TaskManifestPath is where the task with this index records its commit
// under commitDir (the staging location a sink writes to).
func TaskManifestPath(commitDir string, task int32) string {
	return strings.TrimSuffix(commitDir, "/") + fmt.Sprintf("/_tasks/task-%05d%s", task, PendingSuffix)
}

// FinalLocation is where a sink committing into commitDir (the staging
// location <output>/_temporary/<id>, or a sink vertex's directory under
// it) puts its files on an object store: the same place with the staging
// part taken out. ok is false for a commitDir outside any staging area.
func FinalLocation(commitDir string) (string, bool) {
	marker := "/" + TempDir + "/"
	i := strings.LastIndex(commitDir, marker)
	if i < 0 {
		return "", false
	}
	id, sub, _ := strings.Cut(commitDir[i+len(marker):], "/")
	if id == "" {
		return "", false
	}
	out := commitDir[:i]
	if sub != "" {
		out += "/" + sub
	}
	return out, true
}

// JobManifest is the object-store job commit's journal, written before it
// changes anything visible: the uploads to complete and the old files to
// delete (with overwrite). Its presence is "started": from then on the
// commit only goes forward.
type JobManifest struct {
	StagingID string   `json:"staging_id"`
	Uploads   []Upload `json:"uploads"`
	Delete    []string `json:"delete,omitempty"`
}

// Success is the JSON in _SUCCESS after an object-store commit: which
// commit it was and every file it published, relative to the output.
type Success struct {
	Committer string   `json:"committer"`
	StagingID string   `json:"staging_id"`
	Files     []string `json:"files"`
}

// SuccessCommitter names ebb's object-store committer in _SUCCESS.
const SuccessCommitter = "ebb-object-store"

// jobManifestName is the journal's name in the staging area.
const jobManifestName = "_job.json"

// ObjectStep names the steps of an object-store job commit.
const (
	StepJournaled Step = "journaled" // the job manifest is written
	StepWithdrawn Step = "withdrawn" // an old _SUCCESS is deleted
	StepCompleted Step = "completed" // every upload is completed
	StepPruned    Step = "pruned"    // old files deleted, stray uploads aborted
	StepSucceeded Step = "succeeded" // _SUCCESS is written
	// StepCleaned (shared with the rename protocol): the staging area is gone.
)

// ObjectSteps lists the object-store steps, in order.
var ObjectSteps = []Step{StepJournaled, StepWithdrawn, StepCompleted, StepPruned, StepSucceeded, StepCleaned}

func marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // plain structs of strings and numbers always marshal
	}
	return append(b, '\n')
}

func relTo(root, p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
}

func under(root, p string) bool { return strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") }

func inTemp(root, p string) bool {
	return p == path.Join(root, TempDir) || under(path.Join(root, TempDir), p)
}
