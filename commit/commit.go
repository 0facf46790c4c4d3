// Package commit owns how a DAG's results reach its output directory, in
// the manner of Hadoop's FileOutputCommitter: sink attempts commit their
// files into a staging directory under the output
// (<output>/_temporary/<staging id>/), and only when the whole DAG has
// succeeded are they promoted: the staging directory becomes the output
// in one directory rename, with a _SUCCESS marker and one that names the
// staging id (promote.go says each step and how an interrupted promotion is
// finished or undone by the next AM attempt). A DAG that fails or is
// killed has its staging directory removed and leaves the output as it
// was.
//
// It also owns the rule that keeps a rerun from mixing old and new results:
// an output that already holds anything but _temporary is refused at
// submission unless the DAG asks to overwrite it, and then the old
// contents are removed only at promotion, after success.
//
// On an object store (an FS that is also an ObjectFS, such as S3 in
// package s3fs) there is no rename: sink attempts upload their files to
// their final names as multipart uploads left pending, task commits record
// them, and the job commit completes them and writes _SUCCESS last
// (objectcommit.go says each step and how a crash at each is finished or
// undone).
//
// Committing works over a small port, FS, found for each output location
// by a Resolver: LocalFS here, HDFS in package hdfsfs, S3 in s3fs. It is a leaf: it
// imports only the standard library, so the AM, the CLI and hdfsfs can
// all use it.
package commit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

const (
	// TempDir holds staging directories under an output. Listers skip
	// names starting with "_", so a DAG reading an output never reads
	// staged files.
	TempDir = "_temporary"
	// SuccessMarker is written last, once every result is in place.
	SuccessMarker = "_SUCCESS"
)

// Entry is one name in a directory.
type Entry struct {
	Name string
	Dir  bool
}

// FS is what committing needs from a file system. Paths are absolute
// paths inside it (slash-separated). A missing path is an error that
// matches fs.ErrNotExist.
type FS interface {
	// Stat says whether p is a directory.
	Stat(p string) (dir bool, err error)
	// ReadDir lists a directory's entries.
	ReadDir(dir string) ([]Entry, error)
	MkdirAll(dir string) error
	// Rename moves a file or directory; newPath does not exist.
	Rename(oldPath, newPath string) error
	// RemoveAll removes p and everything under it; a missing p is fine.
	RemoveAll(p string) error
	// Remove removes a file or an empty directory.
	Remove(p string) error
	// WriteFile writes a small file whole, replacing one that exists.
	WriteFile(p string, data []byte) error
}

// Resolver finds the file system of an output location (a local path or
// a URL such as hdfs://host:port/path) and the path inside it.
type Resolver func(location string) (FS, string, error)

// NewStagingID returns a fresh name for a DAG's staging directory. It is
// random rather than the DAG's id because ids restart with every AM, and a
// staging directory left by a crashed AM must never be promoted by
// another DAG.
func NewStagingID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

// Staging is where a DAG with this staging id commits its sink files
// under output: <output>/_temporary/<id>. It is a location of the same
// kind as output (a path or a URL).
func Staging(output, id string) string {
	return strings.TrimSuffix(output, "/") + "/" + TempDir + "/" + id
}

// ExistsError refuses an output that already holds results.
type ExistsError struct {
	Output string
	// Entries are a few of the names found there.
	Entries []string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("output directory %s already exists and is not empty (holds %s): choose another output, "+
		"or replace its contents when the DAG succeeds with --overwrite (or overwrite: true in the DAG)",
		e.Output, strings.Join(e.Entries, ", "))
}

// NotDirError: the output names a file.
type NotDirError struct{ Output string }

func (e *NotDirError) Error() string {
	return fmt.Sprintf("output %s is a file, not a directory: choose another output", e.Output)
}

// Committer checks, promotes and aborts DAG outputs.
type Committer struct {
	resolve Resolver
	// after, when set, hears of each promotion step as it is done.
	after func(step Step, output string)
}

// AfterStep makes c call f after each step of a promotion, with the step
// and the output: fault injection (a test stops the AM there and kills
// it) and logging.
func (c *Committer) AfterStep(f func(step Step, output string)) *Committer {
	c.after = f
	return c
}

// New returns a Committer that finds file systems through r.
func New(r Resolver) *Committer { return &Committer{resolve: r} }

// Check decides whether a DAG may write to output, before it starts. An
// output that does not exist, is empty, or holds only _temporary (left by
// DAGs that did not finish) is fine; one that holds anything else is an
// *ExistsError unless overwrite is set. A file is a *NotDirError. exists
// says whether the directory was there.
func (c *Committer) Check(output string, overwrite bool) (exists bool, err error) {
	fsys, root, err := c.resolve(output)
	if err != nil {
		return false, err
	}
	exists, err = check(fsys, root, output, overwrite)
	if p, ok := fsys.(WriteProber); ok && err == nil {
		err = p.ProbeWrite(root)
	}
	return exists, err
}

// WriteProber is a file system that can tell, before a DAG starts, whether
// it will take the writes its commit needs (an object store that refuses
// multipart uploads will not), so that a DAG it cannot take is refused at
// submission instead of failing at its first write.
type WriteProber interface {
	// ProbeWrite tries the calls the commit of an output at root makes,
	// leaving nothing behind, and returns a one-line error if one is
	// refused.
	ProbeWrite(root string) error
}

func check(fsys FS, root, output string, overwrite bool) (exists bool, err error) {
	if root == "/" && overwrite {
		return false, fmt.Errorf("output %s is the root of its file system: ebb will not overwrite it", output)
	}
	dir, err := fsys.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking output %s: %w", output, err)
	}
	if !dir {
		return true, &NotDirError{Output: output}
	}
	if overwrite {
		return true, nil
	}
	names, err := results(fsys, root)
	if err != nil {
		return true, fmt.Errorf("checking output %s: %w", output, err)
	}
	if len(names) > 0 {
		if len(names) > 3 {
			names = append(names[:3], "...")
		}
		return true, &ExistsError{Output: output, Entries: names}
	}
	return true, nil
}

// results names the entries of an output directory other than TempDir.
func results(fsys FS, root string) ([]string, error) {
	es, err := fsys.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range es {
		if e.Name != TempDir {
			names = append(names, e.Name)
		}
	}
	return names, nil
}

// dropAttemptLeftovers removes the attempt-level _temporary directories
// in the staging directory and in its subdirectories (one per sink vertex
// when a DAG has several), so promotion renames results only.
func dropAttemptLeftovers(fsys FS, dir string, entries []Entry) error {
	for _, e := range entries {
		if !e.Dir {
			continue
		}
		p := path.Join(dir, e.Name)
		if e.Name == TempDir {
			if err := fsys.RemoveAll(p); err != nil {
				return fmt.Errorf("removing %s: %w", p, err)
			}
			continue
		}
		sub, err := fsys.ReadDir(p)
		if err != nil {
			return fmt.Errorf("reading staged results %s: %w", p, err)
		}
		if err := dropAttemptLeftovers(fsys, p, sub); err != nil {
			return err
		}
	}
	return nil
}

func removeIfEmpty(fsys FS, dir string) error {
	es, err := fsys.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	if len(es) > 0 {
		return nil
	}
	// Remove, not RemoveAll: whatever appeared since the listing stays.
	if err := fsys.Remove(dir); err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	return nil
}
