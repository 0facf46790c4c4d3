package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// envDecommissionConfDir names the conf dir of a cluster started by
// scripts/minicluster/start-decommission.sh: a fourth NodeManager under
// 127.0.0.2 that the RM's exclude list can decommission alone.
const envDecommissionConfDir = "EBB_TEST_DECOMMISSION_HADOOP_CONF_DIR"

// The issue-23 decommission acceptance on real YARN: while a DAG runs with
// workers on 127.0.0.2, that NodeManager is gracefully decommissioned
// (exclude list, rmadmin -refreshNodes -g 120). The AM's api/v1/nodes
// shows it DECOMMISSIONING (or, once empty, DECOMMISSIONED) within a few
// heartbeats; no attempt starts there after the AM shows it; the DAG
// succeeds with no failed attempt; the session's workers there are gone
// well before the RM's timeout.
//
// DAG: map (48 attempts of 1024 MB, 3 s) -> reduce (2 attempts): 1024 MB
// workers, more wanted than the four 4096 MB NodeManagers hold, so the RM
// gives some on every node, 127.0.0.2 included.
func TestYarnDecommissionDrainsTheNode(t *testing.T) {
	dir := testcluster.SpecialConfDir(t, envDecommissionConfDir, "start one with scripts/minicluster/start-decommission.sh RUNDIR")
	// A decommissioned NodeManager shuts down: the script starts it again
	// (and leaves a running one alone).
	if out, err := exec.Command("../../scripts/minicluster/start-decommission.sh", filepath.Dir(dir)).CombinedOutput(); err != nil {
		t.Fatalf("start-decommission.sh: %v\n%s", err, out)
	}
	t.Setenv(testcluster.EnvConfDir, dir) // the helpers below read this cluster
	y := newYarnTest(t)
	env := testcluster.Env(t)
	host := env["EXTRA_NM_HOST"]
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sets := append([]string{"--set", "mr3.am.session.mode=true", "--set", "ebb.session.idle.timeout.secs=600"}, amSets...)
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "decommission"}, sets...)...)
	if err != nil {
		t.Fatalf("starting the session: %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	t.Cleanup(func() { refreshNodes(t, env, "") }) // the node back for the next run
	api := testcluster.RMWebURL(t) + "/proxy/" + id.String() + "/api/v1/"
	spec := y.writeDAG(`
name: decommission
containerGroup: {name: d, workerMemoryMB: 1024}
vertices:
  - {name: map, command: [ebb, task, burn, --memory-mb, "16", --seconds, "3"], parallelism: 48, memoryMB: 1024}
  - {name: reduce, command: [ebb, task, burn, --memory-mb, "16", --seconds, "1"], parallelism: 2, memoryMB: 1024}
edges: [{from: map, to: reduce, type: scatter-gather}]
`)
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--output", filepath.Join(t.TempDir(), "out"), spec)
	if err != nil {
		t.Fatalf("dag submit: %v\n%s", err, out)
	}
	dagID := dagIDRe.FindString(out)

	// A worker on the extra node, then its decommission.
	y.waitFor("a worker on "+host, 120*time.Second, func() bool {
		var ws []ui.Worker
		if !y.tryJSON(api+"workers", &ws) {
			return false
		}
		for _, w := range ws {
			if strings.HasPrefix(w.Node, host+":") {
				return true
			}
		}
		return false
	})
	asked := time.Now()
	refreshNodes(t, env, host)
	var seen time.Time
	var state string
	y.waitFor("api/v1/nodes to show "+host+" leaving", 30*time.Second, func() bool {
		var ns []ui.Node
		if !y.tryJSON(api+"nodes", &ns) {
			return false
		}
		for _, n := range ns {
			if strings.HasPrefix(n.ID, host+":") && (n.State == "DECOMMISSIONING" || n.State == "DECOMMISSIONED") {
				seen, state = time.Now(), n.State
				return true
			}
		}
		return false
	})
	t.Logf("api/v1/nodes showed %s %s %s after rmadmin -refreshNodes", host, state, seen.Sub(asked).Round(time.Millisecond))

	var d ui.DAGDetail
	y.waitFor("the DAG to end", 180*time.Second, func() bool {
		return y.tryJSON(api+"dags/"+dagID+"?limit=1000", &d) && d.State != "RUNNING" && d.State != "SUBMITTED"
	})
	if d.State != "SUCCEEDED" {
		t.Fatalf("DAG %s %s: %s", dagID, d.State, d.Diagnostics)
	}
	var after, failed []string
	for _, a := range d.Attempts {
		if strings.HasPrefix(a.Node, host+":") && a.Start.After(seen) {
			after = append(after, fmt.Sprintf("%s@%s", a.ID, a.Start.Format("15:04:05.000")))
		}
		if a.State == "FAILED" {
			failed = append(failed, a.ID)
		}
	}
	if len(after) > 0 {
		t.Errorf("attempts started on %s after the AM showed it %s at %s: %v", host, state, seen.Format("15:04:05.000"), after)
	}
	if len(failed) > 0 {
		t.Errorf("failed attempts: %v", failed)
	}
	// Off the node before the RM's 120 s timeout: the session keeps its
	// workers elsewhere (idle timeout 10 min by default), but those on the
	// decommissioning node go once no running DAG needs them.
	y.waitFor("no worker of the session left on "+host, 60*time.Second, func() bool {
		var ws []ui.Worker
		if !y.tryJSON(api+"workers", &ws) {
			return false
		}
		for _, w := range ws {
			if strings.HasPrefix(w.Node, host+":") {
				return false
			}
		}
		return true
	})
	t.Logf("the session's last worker on %s was gone %s after rmadmin -refreshNodes (the RM's timeout: 120 s); %d attempts in all",
		host, time.Since(asked).Round(time.Second), len(d.Attempts))
}

// refreshNodes writes the exclude list (host, or empty) and has the RM
// re-read it gracefully, with a 120 s timeout.
func refreshNodes(t *testing.T, env map[string]string, host string) {
	t.Helper()
	if err := os.WriteFile(env["EXCLUDE_FILE"], []byte(host+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(env["JAVA"], "-Xmx256m", "-cp", env["RMADMIN_CLASSPATH"],
		"org.apache.hadoop.yarn.client.cli.RMAdminCLI", "-refreshNodes", "-g", "120", "-server")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rmadmin -refreshNodes: %v\n%s", err, out)
	}
}
