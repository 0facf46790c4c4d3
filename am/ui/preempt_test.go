package ui

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// /metrics and the group's JSON count the containers a preemption warning
// named, those the AM gave back and those the RM killed, and apart from
// them the containers the cluster evicted.
func TestMetricsCountPreemption(t *testing.T) {
	c, err := core.NewCore(uiCoreOptions())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	spec, err := dag.Parse("x.yaml", []byte(`
name: p
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 1024}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SubmitDAG(now, core.Submission{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"w1", "w2"} {
		if err := c.WorkerRegistered(now, core.WorkerInfo{ID: w, Group: "g", Node: "n-" + w, NodeMB: 4096, MemoryMB: 1024}); err != nil {
			t.Fatal(err)
		}
	}
	c.Apply(now, core.PreemptionWarned{Strict: []string{"w1"}})
	c.Apply(now, core.WorkerGone{Worker: "w2", Reason: "preempted", Exited: true, Preempted: true})
	if err := c.WorkerRegistered(now, core.WorkerInfo{ID: "w3", Group: "g", Node: "n-w3", NodeMB: 4096, MemoryMB: 1024}); err != nil {
		t.Fatal(err)
	}
	c.Apply(now, core.WorkerGone{Worker: "w3", Reason: "evicted", Exited: true, Evicted: true})
	c.Drain(now, &drained{})
	srv := httptest.NewServer(New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0001", World: "test"}}))
	t.Cleanup(srv.Close)
	_, m := get(t, srv.URL+"/metrics")
	for _, want := range []string{
		`ebb_group_preempted_containers_total{group="g",outcome="warned"} 1`,
		`ebb_group_preempted_containers_total{group="g",outcome="given_back"} 1`,
		`ebb_group_preempted_containers_total{group="g",outcome="lost"} 1`,
		`ebb_group_preempted_containers_total{group="g",outcome="evicted"} 1`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	if _, js := get(t, srv.URL+"/api/v1/groups"); !strings.Contains(js, `"preemptionGivenBack": 1`) || !strings.Contains(js, `"evicted": 1`) {
		t.Errorf("api/v1/groups lacks the give-back or the eviction: %s", js)
	}
}
