package am

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// The status page and /metrics answer from the live core.
func TestStatusPage(t *testing.T) {
	a := runTestAM(t, Options{StatusListen: "127.0.0.1:0"})
	ctx := a.ctx
	if _, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(`
name: shown
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 256}]
`)}); err != nil {
		t.Fatal(err)
	}
	get := func(path string) string {
		resp, err := http.Get("http://" + a.StatusAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if page := get("/"); !strings.Contains(page, "shown") || !strings.Contains(page, "RUNNING") || !strings.Contains(page, "s_req") {
		t.Fatalf("status page lacks the DAG:\n%s", page)
	}
	if m := get("/metrics"); !strings.Contains(m, `ebb_dags{state="RUNNING"} 1`) || !strings.Contains(m, `ebb_group_queued_attempts{group="g"} 2`) {
		t.Fatalf("metrics:\n%s", m)
	}
}

// nopWorld starts nothing: the DAG stays queued.
type nopWorld struct{}

func (nopWorld) WantWorkers(time.Time, core.WantWorkers)       {}
func (nopWorld) NodeMB(string) int64                           { return 0 }
func (nopWorld) Tick(time.Time, core.Summary)                  {}
func (nopWorld) WorkerStopped(time.Time, string)               {}
func (nopWorld) WorkerMoved(time.Time, string, core.GroupInfo) {}
func (nopWorld) Close() error                                  { return nil }
