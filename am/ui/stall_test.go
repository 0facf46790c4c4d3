package ui

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// /metrics and the group's JSON count the gathering consumers the AM
// killed to break a slow-start stall: core/slowstart_stall_test.go's
// fixture (a 512 MB worker, the group's cap, filled by two gathering
// reduces while 384 MB maps wait), one interval after the stall began.
func TestMetricsCountSlowStartKills(t *testing.T) {
	o := uiCoreOptions()
	o.SlowStart, o.MaxWorkers = 0.05, 1
	c, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	spec, err := dag.Parse("x.yaml", []byte(`
name: stall
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: map, command: "true", parallelism: 3, memoryMB: 384}
  - {name: side, command: "true", parallelism: 2, memoryMB: 128}
  - {name: reduce, command: "true", parallelism: 2, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
  - {from: side, to: reduce, type: scatter-gather}
`))
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.SubmitDAG(now, core.Submission{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WorkerRegistered(now, core.WorkerInfo{ID: "w1", Group: "g", Node: "n1", NodeMB: 4096, MemoryMB: 512}); err != nil {
		t.Fatal(err)
	}
	finish := func(vertex string, task int) {
		c.Drain(now, &drained{}) // the journal records an attempt once it is carried out
		for _, r := range c.Attempts(id) {
			if r.Vertex == vertex && r.Task == task && r.State == "RUNNING" {
				c.AttemptUpdate(now, core.AttemptUpdate{AttemptID: r.ID, Result: core.AttemptSucceeded})
				return
			}
		}
		t.Fatalf("%s %d is not running", vertex, task)
	}
	finish("side", 0)
	finish("map", 0)
	finish("side", 1)
	for _, s := range []time.Duration{time.Second, 4 * time.Second} {
		c.Tick(now.Add(s))
	}
	c.Drain(now, &drained{})
	srv := httptest.NewServer(New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0001", World: "test"}}))
	t.Cleanup(srv.Close)
	if _, m := get(t, srv.URL+"/metrics"); !strings.Contains(m, `ebb_group_slowstart_killed_attempts_total{group="g"} 1`+"\n") {
		t.Errorf("metrics lack one slow-start kill:\n%s", m)
	}
	if _, js := get(t, srv.URL+"/api/v1/groups"); !strings.Contains(js, `"slowStartKilled": 1`) {
		t.Errorf("api/v1/groups lacks the kill: %s", js)
	}
}
