package ui

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// maxLogBytes bounds what one log request reads: the tail, like the
// NodeManager's container-log page with start=-N.
const maxLogBytes = 1 << 20

// localLog serves a local-world worker's log file (an attempt's stdout or
// stderr, or the worker's own worker.log). Only plain file names inside the container's log
// directory are served, through os.Root, so no path can climb out of it.
func (u *UI) localLog(w http.ResponseWriter, r *http.Request) {
	container, file := r.PathValue("container"), r.PathValue("file")
	if u.o.LocalLogDir == "" || !plainName(container) || !plainName(file) {
		http.NotFound(w, r)
		return
	}
	dir, err := os.OpenRoot(filepath.Join(u.o.LocalLogDir, container))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer func() { _ = dir.Close() }() // read-only
	f, err := dir.Open(file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer func() { _ = f.Close() }() // read-only
	if st, err := f.Stat(); err == nil && st.Size() > maxLogBytes {
		if _, err := f.Seek(st.Size()-maxLogBytes, io.SeekStart); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxLogBytes))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeBody(w, []byte(u.redact(string(b))))
}

func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`)
}
