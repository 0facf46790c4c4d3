package am

import (
	"context"
	"net/http"
	"os"
	"os/user"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// liveSource lets the UI read the core on the loop's goroutine, so every
// page is one consistent snapshot and the core needs no locks. Its DAGs'
// states are the ones clients hear (AM.view): a DAG whose output is still
// being committed is RUNNING, so a reader who sees SUCCEEDED finds the
// output there.
type liveSource struct {
	loop *Loop
	view func(core.DAGStatus) core.DAGStatus
}

func (s liveSource) Read(ctx context.Context, f func(v ui.View)) error {
	return s.loop.View(ctx, func(v ui.View) { f(clientView{View: v, view: s.view}) })
}

// clientView is a core's view with each DAG's status as clients see it.
type clientView struct {
	ui.View
	view func(core.DAGStatus) core.DAGStatus
}

func (v clientView) DAGs() []core.DAGStatus {
	ds := v.View.DAGs()
	out := make([]core.DAGStatus, len(ds))
	for i, d := range ds {
		out[i] = v.view(d)
	}
	return out
}

func (v clientView) DAGView(id string) (core.DAGView, bool) {
	d, ok := v.View.DAGView(id)
	if ok {
		d.DAGStatus = v.view(d.DAGStatus)
	}
	return d, ok
}

// statusHandler serves the AM's tracking URL: the UI, its JSON API and the
// Prometheus metrics (package ui).
func (a *AM) statusHandler() http.Handler {
	a.ui = ui.New(liveSource{loop: a.loop, view: a.view}, a.uiOpts)
	return a.ui
}

// uiOptions fills in what the UI's options leave out: the secret it must
// never show, the start time, the user and the application id.
func uiOptions(ao Options) ui.Options {
	o := ao.UI
	o.Secret = ao.Secret
	if o.App.Started.IsZero() {
		o.App.Started = time.Now()
	}
	if o.App.User == "" {
		o.App.User = currentUser()
	}
	if o.App.ID == "" {
		o.App.ID = ao.Core.IDPrefix
	}
	if o.App.Attempt == 0 {
		o.App.Attempt = 1
	}
	return o
}

// currentUser names the AM's user for the header: $USER, else the
// account the process runs as.
func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
