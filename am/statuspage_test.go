package am

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
)

// The status page and /metrics answer from the live core.
func TestStatusPage(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	a, err := New(Options{Listen: "127.0.0.1:0", StatusListen: "127.0.0.1:0", Secret: "s", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	a.SetWorld(nopWorld{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the AM ended with %v", err)
		}
	}()
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

func (nopWorld) WantWorkers(time.Time, core.GroupInfo, int, []string, []string) {}
func (nopWorld) NodeMB(string) int64                                            { return 0 }
func (nopWorld) Tick(time.Time)                                                 {}
func (nopWorld) WorkerStopped(time.Time, string)                                {}
func (nopWorld) WorkerMoved(time.Time, string, core.GroupInfo)                  {}
func (nopWorld) Close() error                                                   { return nil }
