package am

import (
	"context"
	"net/http"
	"os"
	"os/user"
	"time"

	"github.com/ebb-am/ebb/am/ui"
)

// liveSource lets the UI read the core on the loop's goroutine, so every
// page is one consistent snapshot and the core needs no locks.
type liveSource struct{ loop *Loop }

func (s liveSource) Read(ctx context.Context, f func(v ui.View)) error {
	return s.loop.View(ctx, f)
}

// statusHandler serves the AM's tracking URL: the UI, its JSON API and the
// Prometheus metrics (package ui).
func (a *AM) statusHandler() http.Handler {
	a.ui = ui.New(liveSource{a.loop}, a.uiOpts)
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
