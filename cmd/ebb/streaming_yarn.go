package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/streaming"
	"github.com/ebb-am/ebb/yarnclient"
)

// A Streaming job on YARN (mapreduce.framework.name=yarn): its paths are
// on HDFS (relative ones under /user/<user>, as Hadoop's), its -file and
// -files are uploaded to a directory of the job's under
// /user/<user>/.ebb/streaming/ (removed when it ends) from which workers
// copy them, and the DAG is submitted as `ebb submit` submits one.

// hdfsLister is streaming.FS over HDFS, with globs in the last element.
type hdfsLister struct{ fs *hdfsfs.FS }

func (h hdfsLister) Stat(p string) (streaming.Entry, error) {
	hp, err := h.fs.Path(p)
	if err != nil {
		return streaming.Entry{}, err
	}
	var fi os.FileInfo
	err = h.fs.Do("stat "+p, func() (err error) { fi, err = h.fs.Client().Stat(hp); return err })
	if err != nil {
		return streaming.Entry{}, err
	}
	return streaming.Entry{Path: h.fs.URL(hp), IsDir: fi.IsDir(), Size: fi.Size(), BlockSize: blockSize(fi)}, nil
}

// blockSize is an HDFS file's block size, from its status.
func blockSize(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(interface{ GetBlocksize() uint64 }); ok && !fi.IsDir() {
		return int64(st.GetBlocksize())
	}
	return 0
}

func (h hdfsLister) ReadDir(p string) ([]streaming.Entry, error) {
	hp, err := h.fs.Path(p)
	if err != nil {
		return nil, err
	}
	var fis []os.FileInfo
	err = h.fs.Do("listing "+p, func() (err error) { fis, err = h.fs.Client().ReadDir(hp); return err })
	if err != nil {
		return nil, err
	}
	out := make([]streaming.Entry, 0, len(fis))
	for _, fi := range fis {
		out = append(out, streaming.Entry{Path: h.fs.URL(path.Join(hp, fi.Name())), IsDir: fi.IsDir(), Size: fi.Size(), BlockSize: blockSize(fi)})
	}
	return out, nil
}

func (h hdfsLister) Glob(pattern string) ([]string, error) {
	hp, err := h.fs.Path(pattern)
	if err != nil {
		return nil, err
	}
	// Each NameNode call waits out a restart, as every gateway call does
	// (hdfsfs.FS.Do, dfs.client.retry.policy.spec).
	readDir := func(dir string) ([]string, error) {
		var fis []os.FileInfo
		err := h.fs.Do("listing "+dir, func() error {
			fi, err := h.fs.Client().Stat(dir)
			if err != nil || !fi.IsDir() {
				return err // a file matched an element before the last: nothing under it
			}
			fis, err = h.fs.Client().ReadDir(dir)
			return err
		})
		if err != nil {
			return nil, err
		}
		names := make([]string, len(fis))
		for i, fi := range fis {
			names[i] = fi.Name()
		}
		return names, nil
	}
	exists := func(p string) (bool, error) {
		err := h.fs.Do("looking up "+p, func() error { _, err := h.fs.Client().Stat(p); return err })
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	matches, err := streaming.GlobDirs(hp, readDir, exists)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = h.fs.URL(m)
	}
	return out, nil
}

// runStreamingYARN plans, builds and submits the job, and follows it.
func runStreamingYARN(ctx context.Context, c *conf.Config, job *streaming.Job, s *streaming.Settings, flags streamingFlags, out, errOut io.Writer) error {
	user := yarnclient.User()
	defaultFS := c.DefaultFS()
	if s.DefaultFS != "" {
		defaultFS = s.DefaultFS
	}
	// Connecting, listing the inputs and staging -files wait for a
	// NameNode that does not answer as Hadoop's own client does
	// (hdfsfs.ClientRetryFrom).
	retry, err := hdfsfs.ClientRetryFrom(c.Raw)
	if err != nil {
		return err
	}
	fs, err := retry.Dial(ctx, defaultFS, func(context.Context) (*hdfsfs.FS, error) { return hdfsfs.Dial(defaultFS, user) },
		func(what string, err error, next time.Duration) {
			_, _ = fmt.Fprintln(errOut, "ebb: "+hdfsfs.RetryNote(what, err, next))
		})
	if err != nil {
		return err
	}
	defer func() { _ = fs.Close() }() // the client's connection only
	qualify := func(p string) (string, error) {
		switch {
		case strings.HasPrefix(p, "hdfs://"):
			return p, nil
		case strings.HasPrefix(p, "file:"):
			return "", &streaming.Error{Code: streaming.ExitFailed, Msg: fmt.Sprintf("path %q: on YARN, want an hdfs:// path (the tasks run on the cluster's nodes)", p)}
		case strings.HasPrefix(p, "/"):
			return fs.URL(path.Clean(p)), nil
		}
		return fs.URL(path.Join("/user", user, p)), nil
	}
	inputs := make([]string, len(job.Inputs))
	for i, in := range job.Inputs {
		if inputs[i], err = qualify(in); err != nil {
			return err
		}
	}
	output, err := qualify(job.Output)
	if err != nil {
		return err
	}
	plan, err := streaming.MakePlan(hdfsLister{fs}, inputs, output, s)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	spec, err := streaming.Build(job, s, plan, streaming.BuildOptions{Cwd: cwd})
	if err != nil {
		return err
	}
	staging := path.Join("/user", user, ".ebb", "streaming", "job-"+randomHex())
	if !flags.dryRun {
		defer func() { _ = fs.RemoveAll(staging) }() // leftovers are the user's, under their .ebb
		if err := uploadFiles(fs, spec, staging); err != nil {
			return err
		}
	}
	data, err := specYAML(spec)
	if err != nil {
		return err
	}
	if flags.dryRun || job.Verbose {
		_, _ = out.Write(data)
		if flags.dryRun {
			return nil
		}
	}
	dir, err := os.MkdirTemp("", "ebb-streaming-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary copy of the DAG
	specPath := filepath.Join(dir, spec.Name+".yaml")
	if err := os.WriteFile(specPath, data, 0o644); err != nil {
		return err
	}
	if err := c.Set("mr3.am.task.max.failed.attempts", strconv.Itoa(max(s.MapAttempts, s.RedAttempts))); err != nil {
		return err
	}
	p := &printer{w: errOut}
	o := submitOptions{}
	o.DAGPath, o.Queue, o.Name = specPath, s.Queue, spec.Name
	o.Warn = func(w string) { p.println("ebb streaming: warning:", w) }
	o.Progress = func(s string) { p.println("ebb streaming:", s) }
	outPath, _ := fs.Path(output)
	if err := runSubmit(ctx, c, o, errOut, errOut); err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.code == 2 {
			_ = fs.Client().MkdirAll(outPath, 0o755) // Hadoop leaves the output directory, empty
			return &streaming.Error{Code: streaming.ExitFailed, Msg: "Job not successful!"}
		}
		return err
	}
	// The commit marker is for a later attempt of the job's AM, which is gone.
	if entries, err := fs.List(outPath); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name, "_ebb-commit-") {
				_ = fs.Client().Remove(path.Join(outPath, e.Name)) // harmless if left
			}
		}
	}
	return nil
}

// uploadFiles puts the DAG's local stream files (the job's -file and
// -files, which Build checked) into staging and names them by their
// hdfs:// URLs instead, under the same names in the tasks' directories.
func uploadFiles(fs *hdfsfs.FS, spec *dag.Spec, staging string) error {
	uploaded := map[string]string{}
	for _, v := range spec.Vertices {
		if v.Stream == nil {
			continue
		}
		for i, f := range v.Stream.Files {
			src, name, _ := strings.Cut(f, "#")
			if strings.Contains(src, "://") {
				continue
			}
			url, ok := uploaded[src]
			if !ok {
				dst := path.Join(staging, strconv.Itoa(len(uploaded)), filepath.Base(src))
				if err := fs.Client().MkdirAll(path.Dir(dst), 0o700); err != nil {
					return fmt.Errorf("uploading %s: %w", src, err)
				}
				if _, err := fs.Upload(src, dst, 0o700); err != nil {
					return fmt.Errorf("uploading %s: %w", src, err)
				}
				url = fs.URL(dst)
				uploaded[src] = url
			}
			v.Stream.Files[i] = url + "#" + name
		}
	}
	return nil
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand does not fail on Linux
	return hex.EncodeToString(b)
}
