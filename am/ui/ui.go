// Package ui serves the AM's tracking URL: an overview that updates itself,
// a page per DAG and per ContainerGroup, workers and nodes, the JSON API
// under /api/v1/ that the pages and `ebb dag status --json` read, and
// Prometheus metrics.
//
// Pages are Go html/template with charts and DAG graphs drawn as SVG on the
// server, plus one small hand-written script that polls the JSON API. No
// JavaScript library: the binary needs nothing from the internet or npm,
// and an operator's browser behind the RM's proxy gets the same bytes a
// test does. Every link is relative, because the RM's web proxy serves the
// AM under http://RM/proxy/APP/.
//
// The package reads the AM's state only through View (implemented by the
// live core.Core, via the Loop, and by a finished application's saved
// snapshot), so the same pages serve a running AM and its history. It also
// owns the history's file format: a Snapshot and a DAGRecord are written
// in the package's own tagged types (histtypes.go), never the core's, and
// testdata/history-vN.json holds each version's format.
package ui

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// View is what the pages read: the core's read-only views.
type View interface {
	Now() time.Time
	DAGs() []core.DAGStatus
	DAGView(id string) (core.DAGView, bool)
	Attempt(id string) (core.AttemptRecord, bool)
	GroupViews() []core.GroupView
	Workers() []core.WorkerView
	NodeViews() []core.NodeView
	Transitions() []core.Transition
	Moves() []core.WorkerMove
}

var _ View = (*core.Core)(nil)

// Source runs f with a consistent view: on the AM's loop goroutine for a
// live AM (am.Loop.Do), or over a saved snapshot.
type Source interface {
	Read(ctx context.Context, f func(v View)) error
}

// AppInfo describes the application in the page header.
type AppInfo struct {
	ID    string `json:"id"`    // the application id (YARN's, or local_… for a local AM)
	Name  string `json:"name"`  // the application name (`ebb submit --name`)
	User  string `json:"user"`  // the user the application runs as
	Queue string `json:"queue"` // the YARN queue the RM placed it in ("" locally)
	// Priority is the application's YARN priority as submitted
	// (ebb.am.priority); "" when the queue's default applies.
	Priority string    `json:"priority,omitempty"`
	Attempt  int       `json:"attempt"` // the AM attempt, from 1; above 1 after an AM restart (recovery)
	World    string    `json:"world"`   // local, yarn
	Started  time.Time `json:"started"` // when this AM attempt started
	// Finished is set when the pages show a saved, ended application.
	Finished time.Time `json:"finished,omitzero"`
}

// Options configure the UI.
type Options struct {
	App AppInfo
	// AppLate, when set, fills in what the AM learns of its application
	// after the UI is built: on YARN the queue, from registration (the UI
	// must listen before the AM registers, to give the RM its address).
	AppLate func(*AppInfo)
	// Secret is the application secret: no response may contain it (see
	// Handler's guard), and tests look for it.
	Secret string
	// LocalLogDir, when set, holds each worker's log directory by container
	// id (the local world); the UI serves those files under logs/.
	LocalLogDir string
	// NodeLogURL, when set, gives the NodeManager's container-log URL for a
	// file of a container on a node (the yarn world), the URL YARN uses.
	NodeLogURL func(node, container, file string) string
	// PackingHighPercent is ebb.packing.high.threshold.percent, for each
	// node's packing band (packing.BandOf); 0 is a threshold of 0, as
	// for the allocator, not a default.
	PackingHighPercent int
	// Poll is how often pages refresh themselves (default 1 s).
	Poll time.Duration
	// ExtraMetrics appends a world's own metrics (e.g. RM round trips).
	ExtraMetrics func(b *strings.Builder)
	// Proxy, when set, refuses requests that did not come through the RM's
	// web proxy (see proxy.go).
	Proxy *ProxyGuard
	// DAGHistory, when set, reads a finished DAG's record from the
	// application's history (DAGRecord): the pages of a DAG the view has
	// compacted or forgotten are built from it. It is called off the
	// loop: it may do IO.
	DAGHistory func(id string) (core.DAGView, bool)
	// PendingReasons, when set, says per group why its workers wait (the
	// world's am.PendingReporter); called off the loop.
	PendingReasons func() map[string]string
}

// UI serves the pages, the API and the metrics.
type UI struct {
	o   Options
	src Source
	mux *http.ServeMux
}

// New builds the UI over a source.
func New(src Source, o Options) *UI {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	u := &UI{o: o, src: src, mux: http.NewServeMux()}
	u.routes()
	return u
}

// ServeHTTP serves one request, through the proxy guard when one is set.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u.o.Proxy != nil && !u.o.Proxy.Allow(w, r) {
		return
	}
	u.mux.ServeHTTP(w, r)
}

func (u *UI) routes() {
	m := u.mux
	m.HandleFunc("GET /{$}", u.pageOverview)
	m.HandleFunc("GET /dag/{id}", u.pageDAG)
	m.HandleFunc("GET /dag/{id}/vertex/{vertex}", u.pageVertex)
	m.HandleFunc("GET /group/{name}", u.pageGroup)
	m.HandleFunc("GET /workers", u.pageWorkers)
	m.HandleFunc("GET /svg/group/{name}", u.svgGroup)
	m.HandleFunc("GET /svg/dag/{id}", u.svgDAG)
	m.HandleFunc("GET /logs/{container}/{file}", u.localLog)
	m.HandleFunc("GET /static/{file}", serveAsset)
	m.HandleFunc("GET /metrics", u.metrics)
	u.registerAPI()
}

// read takes a view within the request's lifetime, bounded so a stuck loop
// answers 503 rather than hanging the operator's browser. A DAG's page for
// a DAG the view keeps only as a summary is built over its history record.
func (u *UI) read(r *http.Request, f func(v View)) error {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	id := dagOf(r)
	if id == "" || u.o.DAGHistory == nil {
		return u.src.Read(ctx, f)
	}
	var need bool
	if err := u.src.Read(ctx, func(v View) { dv, ok := v.DAGView(id); need = !ok || dv.Compacted }); err != nil {
		return err
	}
	if !need {
		return u.src.Read(ctx, f)
	}
	dv, ok := u.o.DAGHistory(id) // off the loop: it reads a file
	if !ok {
		return u.src.Read(ctx, f)
	}
	return u.src.Read(ctx, func(v View) { f(withDAG{View: v, dag: dv}) })
}

// dagOf is the DAG a request's page or API answer is about ("" if none).
func dagOf(r *http.Request) string {
	for _, p := range []string{"/dag/", "/api/v1/dags/", "/svg/dag/"} {
		if strings.HasPrefix(r.URL.Path, p) {
			return r.PathValue("id")
		}
	}
	return ""
}

// withDAG is a view with one DAG's detail read from the history.
type withDAG struct {
	View
	dag core.DAGView
}

func (w withDAG) DAGView(id string) (core.DAGView, bool) {
	if id == w.dag.ID {
		return w.dag, true
	}
	return w.View.DAGView(id)
}

func (w withDAG) Attempt(id string) (core.AttemptRecord, bool) {
	for _, a := range w.dag.Attempts {
		if a.ID == id {
			return a, true
		}
	}
	return w.View.Attempt(id)
}

// root is the relative path from the request's page back to the UI's root,
// so links work under http://RM/proxy/APP/ as well as directly.
func root(r *http.Request) string {
	depth := strings.Count(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if depth == 0 {
		return "./"
	}
	return strings.Repeat("../", depth)
}
