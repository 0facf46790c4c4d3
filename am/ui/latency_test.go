package ui

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// The overview, the group page and api/v1/groups show a group's latency
// target (as `ebb autoscale --target` set it) and the p95 slowdown
// measured over the DAGs that ended after the cold start: one DAG here,
// run at once on a warm worker (a slowdown of 1).
func TestGroupShowsTargetAndMeasuredP95(t *testing.T) {
	o := uiCoreOptions()
	o.Scaling = core.ScaleAutoscaler
	o.Autoscale.Predictive, o.Autoscale.BootTime = true, time.Minute
	c, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	spec, err := dag.Parse("x.yaml", []byte("name: one\ncontainerGroup: {name: g, workerMemoryMB: 1024}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 256}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	x := &drained{}
	run := func(submit time.Time) {
		if _, err := c.SubmitDAG(submit, core.Submission{Spec: spec}); err != nil {
			t.Fatal(err)
		}
		c.Drain(submit, x)
		start := submit.Add(time.Second)
		c.Tick(start)
		c.Drain(start, x)
		a := x.started[len(x.started)-1]
		c.AttemptUpdate(start.Add(2*time.Second), core.AttemptUpdate{AttemptID: a.Attempt.ID, Result: core.AttemptSucceeded})
		c.Tick(start.Add(2 * time.Second))
		c.Drain(start.Add(2*time.Second), x)
	}
	if _, err := c.SubmitDAG(now, core.Submission{Spec: spec}); err != nil { // the cold start: not measured
		t.Fatal(err)
	}
	c.Drain(now, x)
	if err := c.WorkerRegistered(now, core.WorkerInfo{ID: "w2", Group: "g", Node: "n1", NodeMB: 4096, MemoryMB: 1024}); err != nil {
		t.Fatal(err)
	}
	c.Drain(now, x)
	a := x.started[len(x.started)-1]
	c.AttemptUpdate(now.Add(time.Second), core.AttemptUpdate{AttemptID: a.Attempt.ID, Result: core.AttemptSucceeded})
	c.Drain(now.Add(time.Second), x)
	run(now.Add(10 * time.Second))
	if r := c.Apply(now.Add(20*time.Second), core.AutoscaleTargetSet{Group: "g", P95Slowdown: 1.25}); r.Err != nil {
		t.Fatal(r.Err)
	}
	srv := httptest.NewServer(New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0001", World: "test"}}))
	t.Cleanup(srv.Close)
	_, js := get(t, srv.URL+"/api/v1/groups")
	for _, want := range []string{`"targetP95Slowdown": 1.25`, `"measuredP95Slowdown": 1,`, `"measuredDAGs": 1`} {
		if !strings.Contains(js, want) {
			t.Errorf("api/v1/groups lacks %s: %s", want, js)
		}
	}
	for _, page := range []string{"/", "/group/g"} {
		if _, html := get(t, srv.URL+page); !strings.Contains(html, "1 / 1.25 (1 DAG)") {
			t.Errorf("%s lacks the latency cell \"1 / 1.25 (1 DAG)\":\n%s", page, html)
		}
	}
}
