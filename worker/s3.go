package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/s3fs"
	"github.com/ebb-am/ebb/yarnrpc"
)

// s3Store is the worker's S3 client set, made on first use. Its settings
// come, in this order, from the secrets of the container's credentials
// (fs.s3a.* keys the gateway shipped as it ships tokens), from
// HADOOP_CONF_DIR's core-site.xml, and from the AWS chain.
func (f *filesystems) s3Store() (*s3fs.Store, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.s3 != nil {
		return f.s3, nil
	}
	lookup, err := s3Lookup()
	if err != nil {
		return nil, err
	}
	f.s3 = s3fs.NewStore(lookup)
	return f.s3, nil
}

func s3Lookup() (func(string) (string, bool), error) {
	secrets := map[string]string{}
	if p := os.Getenv("HADOOP_TOKEN_FILE_LOCATION"); p != "" {
		creds, err := yarnrpc.ReadCredentialsFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading the S3 settings from the container's credentials: %w", err)
		}
		for _, s := range creds.Secrets {
			secrets[s.Alias] = string(s.Secret)
		}
	}
	c, _, err := conf.Load(conf.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the S3 settings (fs.s3a.*): %w", err)
	}
	return func(k string) (string, bool) {
		if v, ok := secrets[k]; ok {
			return v, true
		}
		return c.Raw(k)
	}, nil
}

// s3Files reads splits from S3: paths are whole s3:// or s3a:// URIs.
// Sinks commit to S3 through commitToObjects, never through its
// Create or Rename.
type s3Files struct{ st *s3fs.Store }

var errS3NoFiles = errors.New("s3: an object store has no directories or renames")

func (s s3Files) Open(uri string) (io.ReadSeekCloser, error) {
	loc, err := s3fs.Parse(uri)
	if err != nil {
		return nil, err
	}
	return s.st.Open(context.Background(), loc)
}
func (s3Files) Create(string) (io.WriteCloser, error) { return nil, errS3NoFiles }
func (s3Files) MkdirAll(string) error                 { return errS3NoFiles }
func (s3Files) Rename(string, string) error           { return errS3NoFiles }
func (s3Files) RemoveAll(string) error                { return errS3NoFiles }
func (s3Files) RemoveEmptyDir(string) error           { return errS3NoFiles }

// commitToObjects is a sink attempt's commit on S3: every file F under
// outputDir is uploaded, streaming one part at a time, to its final name
// <output>/F-<task index> as a multipart upload left pending (invisible),
// and the task's manifest (commit.TaskManifestPath) records the uploads
// in one PUT: the task commit. The job commit completes them. An attempt
// killed or failing before the manifest is written aborts what it began,
// and the job commit aborts what a dead one left.
func commitToObjects(ctx context.Context, st *s3fs.Store, outputDir, commitDir, attemptID string, taskIndex int32) (err error) {
	final, ok := commit.FinalLocation(commitDir)
	if !ok {
		return fmt.Errorf("%s is not a staging location (<output>/%s/<id>): refusing to write there", commitDir, commit.TempDir)
	}
	var rels []string
	err = filepath.WalkDir(outputDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(outputDir, p)
		if err == nil {
			rels = append(rels, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", outputDir, err)
	}
	var begun []*s3fs.Writer
	defer func() {
		if err == nil {
			return
		}
		// Abort on a context of its own: ctx may be why we stop.
		actx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, w := range begun {
			_ = w.Abort(actx) // the job commit aborts what is left pending
		}
	}()
	m := commit.TaskManifest{Attempt: attemptID}
	suffix := fmt.Sprintf("-%05d", taskIndex)
	for _, rel := range rels {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		loc, err := s3fs.Parse(final + "/" + path.Clean(rel+suffix))
		if err != nil {
			return err
		}
		w, err := st.Begin(ctx, loc)
		if err != nil {
			return err
		}
		begun = append(begun, w)
		if err := copyInto(w, filepath.Join(outputDir, filepath.FromSlash(rel))); err != nil {
			return err
		}
		m.Uploads = append(m.Uploads, w.Upload())
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	loc, err := s3fs.Parse(commit.TaskManifestPath(commitDir, taskIndex))
	if err != nil {
		return err
	}
	return st.Put(ctx, loc, b)
}

func copyInto(w *s3fs.Writer, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	if _, err := io.Copy(w, in); err != nil {
		return err
	}
	return w.Close()
}
