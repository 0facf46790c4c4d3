package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/hdfsfs"
)

// A finished DAG's record (ui.DAGRecord) goes to <snapshot without
// .json>/<DAG id>.json: <history dir>/<APP>/ on HDFS beside <APP>.json,
// and <root>/history/local-<start>/ beside local-<start>.json locally, so
// `ebb history` and `ebb ui --history FILE` find the records of a file.

// dagRecordsDir is where the records of a history file's DAGs are.
func dagRecordsDir(snapshot string) string { return strings.TrimSuffix(snapshot, ".json") }

// localDAGHistory keeps DAG records in a local directory.
type localDAGHistory struct{ dir string }

var _ am.DAGHistory = localDAGHistory{}

func (h localDAGHistory) WriteDAG(id string, b []byte) error {
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(h.dir, id+".json"), b, 0o600)
}

func (h localDAGHistory) ReadDAG(id string) ([]byte, error) {
	if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("no DAG %q", id) // an id from a URL names no other file
	}
	return os.ReadFile(filepath.Join(h.dir, id+".json"))
}

// hdfsDAGHistory keeps DAG records in an HDFS directory, made private on
// first use as the history directory is.
type hdfsDAGHistory struct {
	fs   *hdfsfs.FS
	dir  string // absolute path
	once sync.Once
	err  error
}

var _ am.DAGHistory = (*hdfsDAGHistory)(nil)

func (h *hdfsDAGHistory) WriteDAG(id string, b []byte) error {
	h.once.Do(func() { h.err = h.mkdirs() })
	if h.err != nil {
		return h.err
	}
	_, err := h.fs.WriteFile(h.dir+"/"+id+".json", b, 0o600)
	return err
}

// mkdirs makes the history directory (as hdfsHistory would: private when
// ebb makes it, as it is when it exists) and the application's below it.
func (h *hdfsDAGHistory) mkdirs() error {
	for _, d := range []string{path.Dir(h.dir), h.dir} {
		ok, err := h.fs.Exists(d)
		if err != nil {
			return err
		}
		if !ok {
			if err := h.fs.MkdirPrivate(d); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *hdfsDAGHistory) ReadDAG(id string) ([]byte, error) {
	if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("no DAG %q", id)
	}
	return h.fs.ReadFile(h.dir + "/" + id + ".json")
}

// dagHistoryReader is ui.Options.DAGHistory over a DAGHistory, for the
// history servers.
func dagHistoryReader(h am.DAGHistory) func(string) (core.DAGView, bool) {
	return func(id string) (core.DAGView, bool) {
		b, err := h.ReadDAG(id)
		if err != nil {
			return core.DAGView{}, false
		}
		v, err := ui.DecodeDAG(b)
		return v, err == nil
	}
}
