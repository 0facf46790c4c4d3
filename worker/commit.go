package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// commitOutputs publishes every file F under outputDir (a sink attempt's
// output) as <commitDir>/F-<task index as %05d>. Each file is first written
// under <commitDir>/_temporary/<attemptID>/ and then renamed into place, so
// readers of commitDir never see a half-written file, and a retried
// attempt's commit replaces an earlier one of the same task.
//
// An attempt killed while it copies (its DAG ended: the AM is removing the
// DAG's staging directory) stops before renaming anything and removes what
// it copied, so it leaves nothing behind the AM's clean-up. So does one
// whose worker finds itself fenced off when it is about to rename
// (mayAct fails: it was stopped past the AM's timeout while it copied;
// fence.go); nil mayAct always may.
func commitOutputs(ctx context.Context, fss *filesystems, outputDir, commitDir, attemptID string, taskIndex int32, mayAct func() error) error {
	fsys, root, err := fss.resolve(commitDir)
	if err != nil {
		return err
	}
	if s, ok := fsys.(s3Files); ok {
		return commitToObjects(ctx, s.st, outputDir, commitDir, attemptID, taskIndex)
	}
	tmpRoot := path.Join(root, "_temporary")
	tmp := path.Join(tmpRoot, attemptID)
	// Leftovers of an interrupted commit of this attempt would make
	// HDFS refuse to create the staged files again.
	if err := fsys.RemoveAll(tmp); err != nil {
		return fmt.Errorf("cleaning %s: %w", tmp, err)
	}
	if err := mkdirBeside(fsys, tmp); err != nil {
		return fmt.Errorf("creating %s: %w", tmp, err)
	}
	var rels []string
	err = filepath.WalkDir(outputDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(outputDir, p)
		if err != nil {
			return err
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", outputDir, err)
	}
	suffix := fmt.Sprintf("-%05d", taskIndex)
	abandon := func() error {
		cause := context.Cause(ctx)
		if err := fsys.RemoveAll(tmp); err != nil {
			return fmt.Errorf("%w (and cleaning %s: %v)", cause, tmp, err)
		}
		_ = fsys.RemoveEmptyDir(tmpRoot)
		return cause
	}
	for _, rel := range rels {
		if ctx.Err() != nil {
			return abandon()
		}
		staged := path.Join(tmp, rel+suffix)
		if err := fsys.MkdirAll(path.Dir(staged)); err != nil {
			return fmt.Errorf("creating %s: %w", path.Dir(staged), err)
		}
		if err := copyFileTo(fsys, filepath.Join(outputDir, filepath.FromSlash(rel)), staged); err != nil {
			return err
		}
	}
	if mayAct != nil {
		if err := mayAct(); err != nil {
			if rerr := fsys.RemoveAll(tmp); rerr != nil {
				return fmt.Errorf("%w (and cleaning %s: %v)", err, tmp, rerr)
			}
			_ = fsys.RemoveEmptyDir(tmpRoot)
			return err
		}
	}
	if ctx.Err() != nil {
		return abandon()
	}
	for _, rel := range rels {
		final := path.Join(root, rel+suffix)
		if err := fsys.MkdirAll(path.Dir(final)); err != nil {
			return fmt.Errorf("creating %s: %w", path.Dir(final), err)
		}
		if err := fsys.Rename(path.Join(tmp, rel+suffix), final); err != nil {
			return fmt.Errorf("committing %s: %w", final, err)
		}
	}
	if err := fsys.RemoveAll(tmp); err != nil {
		return fmt.Errorf("cleaning %s: %w", tmp, err)
	}
	// Other attempts may still be committing; only the last one leaves an
	// empty _temporary behind, and it removes it.
	_ = fsys.RemoveEmptyDir(tmpRoot)
	return nil
}

func copyFileTo(fsys fileSystem, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	out, err := fsys.Create(dst)
	if err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", dst, err)
	}
	return nil
}

// mkdirBeside creates an attempt's directory under _temporary while other
// attempts of the DAG commit beside it. The last of them to finish removes
// _temporary when it is empty, and that can fall between MkdirAll making
// _temporary and making the attempt's directory in it: the second mkdir
// then finds no parent (seen as attempts failing with "mkdir ...: no such
// file or directory" under many concurrent DAGs). Trying again makes both.
func mkdirBeside(fsys fileSystem, dir string) error {
	var err error
	for range 5 {
		if err = fsys.MkdirAll(dir); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}
