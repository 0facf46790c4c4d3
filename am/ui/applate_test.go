package ui

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ebb-am/ebb/am/core"
)

// Issue 23, item 6: the header shows the application's priority beside
// its queue, and the queue the AM learns only when it registers (after
// the UI is built) reaches the pages and the API from then on.
func TestHeaderShowsLateQueueAndPriority(t *testing.T) {
	c, err := core.NewCore(uiCoreOptions())
	if err != nil {
		t.Fatal(err)
	}
	var queue atomic.Pointer[string]
	u := New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0002", World: "yarn", Priority: "4"},
		AppLate: func(a *AppInfo) {
			if q := queue.Load(); q != nil {
				a.Queue = *q
			}
		}})
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	if _, page := get(t, srv.URL+"/"); !strings.Contains(page, `queue <b>-</b>`) || !strings.Contains(page, `priority <b>4</b>`) {
		t.Fatalf("before registration the header should show queue - and priority 4:\n%s", header(page))
	}
	q := "root.a"
	queue.Store(&q)
	if _, page := get(t, srv.URL+"/"); !strings.Contains(page, `queue <b>root.a</b>`) || !strings.Contains(page, `priority <b>4</b>`) {
		t.Errorf("after registration the header should show queue root.a and priority 4:\n%s", header(page))
	}
	if _, api := get(t, srv.URL+"/api/v1/overview"); !strings.Contains(api, `"queue": "root.a"`) || !strings.Contains(api, `"priority": "4"`) {
		t.Errorf("api/v1/overview lacks the queue or the priority: %.300s", api)
	}
}

func header(page string) string {
	i, j := strings.Index(page, `<div class="app">`), strings.Index(page, "</header>")
	if i < 0 || j < i {
		return page
	}
	return page[i:j]
}
