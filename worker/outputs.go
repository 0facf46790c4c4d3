package worker

import (
	"crypto/subtle"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ebb-am/ebb/internal/lockorder"
)

// outputsPathPrefix is the URL scheme of served outputs:
// /v1/outputs/<dag_id>/<producer_attempt>/<consumer>/<partition>.
const outputsPathPrefix = "/v1/outputs/"

// outputStore remembers the output directories of succeeded attempts until
// their DAG ends, and serves them to other workers.
type outputStore struct {
	secret string

	mu lockorder.RWMutex
	// byAttempt maps an attempt id to its DAG and output directory.
	byAttempt map[string]servedOutput
}

type servedOutput struct {
	dagID string
	dir   string
}

func newOutputStore(secret string) *outputStore {
	s := &outputStore{secret: secret, byAttempt: map[string]servedOutput{}}
	s.mu.SetClass("worker.outputs")
	return s
}

func (s *outputStore) add(attemptID, dagID, dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byAttempt[attemptID] = servedOutput{dagID: dagID, dir: dir}
}

// attempts lists the attempts whose outputs are served.
func (s *outputStore) attempts() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.byAttempt))
	for id := range s.byAttempt {
		out = append(out, id)
	}
	return out
}

// dropDAG forgets every output of dagID and returns the attempt ids it held.
func (s *outputStore) dropDAG(dagID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, o := range s.byAttempt {
		if o.dagID == dagID {
			ids = append(ids, id)
			delete(s.byAttempt, id)
		}
	}
	return ids
}

func (s *outputStore) lookup(dagID, attemptID string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o, ok := s.byAttempt[attemptID]
	if !ok || o.dagID != dagID {
		return "", false
	}
	return o.dir, true
}

// authorized compares the bearer token in constant time so that response
// timing does not reveal how much of a guessed secret was right.
func authorized(r *http.Request, secret string) bool {
	want := []byte("Bearer " + secret)
	got := []byte(r.Header.Get("Authorization"))
	return subtle.ConstantTimeCompare(got, want) == 1
}

func (s *outputStore) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+outputsPathPrefix+"{dag}/{attempt}/{consumer}/{partition}", s.serveOutput)
	return authMiddleware(s.secret, mux)
}

func authMiddleware(secret string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r, secret) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ebb"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *outputStore) serveOutput(w http.ResponseWriter, r *http.Request) {
	dagID, attemptID := r.PathValue("dag"), r.PathValue("attempt")
	consumer, partition := r.PathValue("consumer"), r.PathValue("partition")
	p, err := strconv.Atoi(partition)
	if err != nil || p < 0 || !safeSegment(consumer) {
		http.Error(w, "bad consumer or partition", http.StatusBadRequest)
		return
	}
	dir, ok := s.lookup(dagID, attemptID)
	if !ok {
		http.Error(w, "no output for attempt "+attemptID+" of DAG "+dagID, http.StatusNotFound)
		return
	}
	f, err := os.Open(filepath.Join(dir, consumer, strconv.Itoa(p)))
	if err != nil {
		http.Error(w, "no such partition", http.StatusNotFound)
		return
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.Error(w, "no such partition", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// safeSegment accepts names that stay inside one directory level, so a
// request cannot reach files outside an attempt's output directory.
func safeSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && !strings.ContainsRune(s, 0)
}
