package ui

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
)

// The nodes table and api/v1/nodes show each node's state as the cluster
// reports it: a decommissioning node with its worker draining and the time
// the cluster kills what runs there; a lost node with no worker of this AM.
func TestNodesShowTheClusterState(t *testing.T) {
	c, err := core.NewCore(uiCoreOptions())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	spec, err := dag.Parse("x.yaml", []byte(`
name: one
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 256}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SubmitDAG(now, core.Submission{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if err := c.WorkerRegistered(now, core.WorkerInfo{ID: "w1", Group: "g", Node: "n1:1", NodeMB: 4096, MemoryMB: 1024}); err != nil {
		t.Fatal(err)
	}
	c.Apply(now, core.NodeChanged{Node: core.ClusterNode{ID: "n1:1"}, State: core.NodeDecommissioning, DrainTimeout: 2 * time.Minute})
	c.Apply(now, core.NodeChanged{Node: core.ClusterNode{ID: "n9:1"}, State: core.NodeLost})
	c.Drain(now, &drained{})
	u := New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0001", World: "test", Started: now},
		PackingHighPercent: conf.Defaults().Int("ebb.packing.high.threshold.percent")})
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)

	_, body := get(t, srv.URL+"/api/v1/nodes")
	var nodes []Node
	if err := json.Unmarshal([]byte(body), &nodes); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	by := now.Add(2 * time.Minute)
	if len(nodes) != 2 || nodes[0].ID != "n1:1" || nodes[0].State != "DECOMMISSIONING" || !nodes[0].Draining ||
		nodes[0].DrainBy == nil || !nodes[0].DrainBy.Equal(by) || nodes[1].ID != "n9:1" || nodes[1].State != "LOST" {
		t.Errorf("api/v1/nodes: %s\nwant n1:1 DECOMMISSIONING, draining, until %s; n9:1 LOST", body, by.UTC())
	}
	_, page := get(t, srv.URL+"/")
	for _, want := range []string{`<span class="state s-DECOMMISSIONING">DECOMMISSIONING</span> until 2027-01-15 08:02:00`, `<span class="state s-LOST">LOST</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the overview's nodes table lacks %q", want)
		}
	}
}

// A version-1 history (written before nodes had a state) still reads:
// its nodes are RUNNING, with no timeout.
func TestHistoryVersion1StillReads(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "history-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	snap, rec, _ := strings.Cut(string(b), "\n")
	s, err := DecodeSnapshot([]byte(snap))
	if err != nil {
		t.Fatal(err)
	}
	if ns := s.NodeViews(); len(ns) != 1 || ns[0].State != core.NodeRunning || !ns[0].DrainBy.IsZero() {
		t.Errorf("nodes %+v, want one RUNNING", ns)
	}
	if _, err := DecodeDAG([]byte(strings.TrimSpace(rec))); err != nil {
		t.Error(err)
	}
}
