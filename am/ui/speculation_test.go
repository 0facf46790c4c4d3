package ui

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// A race a backup won, as the UI shows it: the DAG page marks the backup
// and the loser and names the straggler's node slow, the API has both
// flags, the DAG's counts and its slow nodes, and
// /metrics counts the backup launched and won.
func TestSpeculationShown(t *testing.T) {
	o := uiCoreOptions()
	o.Speculation.Enabled, o.Speculation.MinRuntime = true, 10*time.Second
	c, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	spec, err := dag.Parse("x.yaml", []byte(`
name: raced
containerGroup: {name: g, workerMemoryMB: 256}
vertices: [{name: v, command: "true", parallelism: 4, memoryMB: 256}]
`))
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.SubmitDAG(now, core.Submission{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	x := &drained{}
	for i := 1; i <= 5; i++ {
		if err := c.WorkerRegistered(now, core.WorkerInfo{ID: fmt.Sprintf("w%d", i), Group: "g", Node: fmt.Sprintf("n%d", i), NodeMB: 1024, MemoryMB: 256}); err != nil {
			t.Fatal(err)
		}
	}
	c.Drain(now, x)
	now = now.Add(20 * time.Second)
	// Task 2 crawls (0.1 in 20 s) while the others are at 0.8.
	for _, a := range x.started {
		p := 0.8
		if a.Attempt.Task == 2 {
			p = 0.1
		}
		c.AttemptUpdate(now, core.AttemptUpdate{AttemptID: a.Attempt.ID, Result: core.AttemptRunning, Progress: p})
	}
	c.Tick(now)
	c.Drain(now, x)
	if len(x.started) != 5 {
		t.Fatalf("%d attempts started, want the four and a backup", len(x.started))
	}
	backup := x.started[4].Attempt.ID
	slowNode := "" // where task 2's original crawls: w<i> is on n<i>
	for _, a := range x.started[:4] {
		if a.Attempt.Task == 2 {
			slowNode = "n" + strings.TrimPrefix(a.Worker, "w")
		}
	}
	c.AttemptUpdate(now, core.AttemptUpdate{AttemptID: backup, Result: core.AttemptSucceeded})
	c.Drain(now, x)
	srv := httptest.NewServer(New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0001"}}))
	t.Cleanup(srv.Close)

	_, page := get(t, srv.URL+"/dag/"+id)
	for _, want := range []string{`<span class="tag backup">backup</span>`, `<span class="tag loser">lost the race</span>`, "1 backup attempts: 1 won, 0 lost",
		`<span class="slownodes">slow nodes: ` + slowNode + `</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the DAG page lacks %q", want)
		}
	}
	var d DAGDetail
	_, body := get(t, srv.URL+"/api/v1/dags/"+id)
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if d.Backups == nil || *d.Backups != (Backups{Launched: 1, Won: 1}) {
		t.Errorf("api backups %+v, want 1 launched and won", d.Backups)
	}
	if len(d.SlowNodes) != 1 || d.SlowNodes[0] != slowNode {
		t.Errorf("api slowNodes %v, want [%s] (where task 2 straggled)", d.SlowNodes, slowNode)
	}
	flags := map[string]string{}
	for _, a := range d.Attempts {
		flags[a.ID] = fmt.Sprintf("%s speculative=%v loser=%v", a.State, a.Speculative, a.Loser)
	}
	orig := strings.TrimSuffix(backup, "_1") + "_0"
	if flags[backup] != "SUCCEEDED speculative=true loser=false" || flags[orig] != "KILLED speculative=false loser=true" {
		t.Errorf("attempts %v, want %s the winning backup and %s the loser", flags, backup, orig)
	}
	_, m := get(t, srv.URL+"/metrics")
	for _, want := range []string{`ebb_speculative_attempts_total{outcome="launched"} 1`, `ebb_speculative_attempts_total{outcome="won"} 1`,
		`ebb_speculative_attempts_total{outcome="lost"} 0`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
