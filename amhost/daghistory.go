package amhost

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

// DAGRecordsDir is where the records of a history file's DAGs are.
func DAGRecordsDir(snapshot string) string { return strings.TrimSuffix(snapshot, ".json") }

// LocalDAGHistory keeps DAG records in a local directory.
type LocalDAGHistory struct{ Dir string }

var _ am.DAGHistory = LocalDAGHistory{}

func (h LocalDAGHistory) WriteDAG(id string, b []byte) error {
	if err := os.MkdirAll(h.Dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(h.Dir, id+".json"), b, 0o600)
}

func (h LocalDAGHistory) ReadDAG(id string) ([]byte, error) {
	if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("no DAG %q", id) // an id from a URL names no other file
	}
	return os.ReadFile(filepath.Join(h.Dir, id+".json"))
}

// HDFSDAGHistory keeps DAG records in an HDFS directory, made private on
// first use as the history directory is.
type HDFSDAGHistory struct {
	FS  *hdfsfs.FS
	Dir string // absolute path
	// made is set once the directories exist; a failure to make them
	// (HDFS away past its retry bound) is tried again by the next write.
	mu   sync.Mutex
	made bool
}

var _ am.DAGHistory = (*HDFSDAGHistory)(nil)

func (h *HDFSDAGHistory) WriteDAG(id string, b []byte) error {
	if err := h.ensureDirs(); err != nil {
		return err
	}
	_, err := h.FS.WriteFile(h.Dir+"/"+id+".json", b, 0o600)
	return err
}

// ensureDirs makes the directories (mkdirs) unless made already.
func (h *HDFSDAGHistory) ensureDirs() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.made {
		return nil
	}
	if err := h.mkdirs(); err != nil {
		return err
	}
	h.made = true
	return nil
}

// mkdirs makes the history directory (as the history file's writer would: private when
// ebb makes it, as it is when it exists) and the application's below it.
func (h *HDFSDAGHistory) mkdirs() error {
	for _, d := range []string{path.Dir(h.Dir), h.Dir} {
		ok, err := h.FS.Exists(d)
		if err != nil {
			return err
		}
		if !ok {
			if err := h.FS.MkdirPrivate(d); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *HDFSDAGHistory) ReadDAG(id string) ([]byte, error) {
	if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("no DAG %q", id)
	}
	return h.FS.ReadFile(h.Dir + "/" + id + ".json")
}

// DAGHistoryReader is ui.Options.DAGHistory over a DAGHistory, for the
// history servers.
func DAGHistoryReader(h am.DAGHistory) func(string) (core.DAGView, bool) {
	return func(id string) (core.DAGView, bool) {
		b, err := h.ReadDAG(id)
		if err != nil {
			return core.DAGView{}, false
		}
		v, err := ui.DecodeDAG(b)
		return v, err == nil
	}
}
