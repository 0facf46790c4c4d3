package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// serve starts the control endpoint (plain HTTP on loopback, for tests)
// and the kubelet API's containerLogs (HTTPS, for the apiserver's
// `kubectl logs` and client-go's GetLogs).
func (k *kubelet) serve(o options) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /fault", k.handleFault)
	mux.HandleFunc("GET /pods", k.handlePods)
	mux.HandleFunc("GET /logs", func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		k.serveLog(w, req, q.Get("namespace"), q.Get("pod"))
	})
	if err := listen(o.control, mux, "", ""); err != nil {
		return fmt.Errorf("--control: %w", err)
	}
	api := http.NewServeMux()
	api.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", func(w http.ResponseWriter, req *http.Request) {
		k.serveLog(w, req, req.PathValue("ns"), req.PathValue("pod"))
	})
	api.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	if err := listen(o.listen, api, o.tlsCert, o.tlsKey); err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	return nil
}

func listen(addr string, h http.Handler, cert, key string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if cert != "" {
			err = srv.ServeTLS(l, cert, key)
		} else {
			err = srv.Serve(l)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "testkubelet: serving", addr, err)
			os.Exit(1)
		}
	}()
	return nil
}

// handleFault: POST /fault?namespace=NS&pod=NAME&kind=oom|evict|kill
// [&message=...] injects a fault into a running pod; 404 when this kubelet
// runs no such pod, 409 when its process is not running.
func (k *kubelet) handleFault(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	kind := q.Get("kind")
	switch kind {
	case "oom", "evict", "kill":
	default:
		http.Error(w, "kind must be oom, evict or kill", http.StatusBadRequest)
		return
	}
	r := k.find(q.Get("namespace"), q.Get("pod"))
	if r == nil {
		http.Error(w, "no such pod on this kubelet", http.StatusNotFound)
		return
	}
	r.mu.Lock()
	state := r.state
	r.mu.Unlock()
	if state != "Running" {
		http.Error(w, "the pod's process is not running: "+state, http.StatusConflict)
		return
	}
	r.send(event{kind: evFault, fault: kind, message: q.Get("message"), control: true})
	_, _ = io.WriteString(w, "ok\n")
}

type podInfo struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
	State     string `json:"state"`
	PID       int    `json:"pid,omitempty"`
	Restarts  int32  `json:"restarts"`
	Dir       string `json:"dir"`
}

// handlePods: GET /pods lists the pods this kubelet runs.
func (k *kubelet) handlePods(w http.ResponseWriter, _ *http.Request) {
	k.mu.Lock()
	out := make([]podInfo, 0, len(k.pods))
	for _, r := range k.pods {
		r.mu.Lock()
		out = append(out, podInfo{r.ns, r.name, string(r.uid), r.state, r.pid, r.restarts, r.dir})
		r.mu.Unlock()
	}
	k.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// serveLog writes the pod's log (every run of its container, appended),
// its last tailLines lines if asked, and with follow=true keeps writing
// until the pod's process ends.
func (k *kubelet) serveLog(w http.ResponseWriter, req *http.Request, ns, name string) {
	path := filepath.Join(k.podDir(ns, name), "log")
	f, err := os.Open(path)
	if err != nil {
		http.Error(w, fmt.Sprintf("no log for pod %s/%s", ns, name), http.StatusNotFound)
		return
	}
	defer func() { _ = f.Close() }()
	w.Header().Set("Content-Type", "text/plain")
	q := req.URL.Query()
	if n, err := strconv.Atoi(q.Get("tailLines")); err == nil && n >= 0 {
		writeTail(w, f, n)
	} else {
		_, _ = io.Copy(w, f)
	}
	if q.Get("follow") != "true" {
		return
	}
	fl, _ := w.(http.Flusher)
	for {
		if fl != nil {
			fl.Flush()
		}
		r := k.find(ns, name)
		alive := false
		if r != nil {
			r.mu.Lock()
			alive = r.state == "Running" || r.state == "Pending"
			r.mu.Unlock()
		}
		select {
		case <-req.Context().Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
		_, _ = io.Copy(w, f)
		if !alive {
			return
		}
	}
}

func writeTail(w io.Writer, f *os.File, n int) {
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	if len(lines) > 0 {
		_, _ = io.WriteString(w, strings.Join(lines, "\n")+"\n")
	}
}
