package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
)

// TestYarnSession: ebb submit without a DAG starts a session; DAGs reach
// it by application id and by session discovery; after
// ebb.session.idle.timeout.secs without a DAG it finishes by itself,
// SUCCEEDED, with every container back and its staging directory gone.
func TestYarnSession(t *testing.T) {
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const idle = 5 * time.Second
	// A session started by `ebb dag submit` takes its settings from the
	// EBB_ environment, as any client configuration.
	y.env = []string{"EBB_EBB_SESSION_IDLE_TIMEOUT_SECS=5", "EBB_MR3_AM_RESOURCE_MEMORY_MB=256",
		"EBB_MR3_AM_RM_HEARTBEAT_INTERVAL_MS=250", "EBB_EBB_AM_WORKER_HEARTBEAT_INTERVAL_MS=250", "EBB_MR3_AM_MAX_APP_ATTEMPTS=1"}
	// Sessions of earlier tests on this cluster idle out within seconds;
	// discovery must start a new one here.
	yc := y.client()
	y.waitFor("no running ebb session of "+y.user, 30*time.Second, func() bool {
		_, err := yc.FindSession(ctx)
		return errors.Is(err, yarnclient.ErrNoSession)
	})
	spec := y.writeDAG(`
name: short
containerGroup: {name: s, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0.2"], parallelism: 2, memoryMB: 128}
`)
	// Outputs go to this machine's disk, where the minicluster's workers
	// run too: what this test is about is the session, and the worker's
	// HDFS commit can still fail a task under load ("replication in
	// progress" on close is not retried in worker/fs.go).
	local := func() string { return filepath.Join(t.TempDir(), "out") }
	out, err := y.ebb(ctx, "dag", "submit", "--app", "session", "--wait", "--output", local(), spec)
	t.Logf("ebb dag submit --app session (none running):\n%s", out)
	if err != nil || !strings.Contains(out, "SUCCEEDED") || !strings.Contains(out, "started ebb session") {
		t.Fatalf("first DAG, starting a session: %v", err)
	}
	id := y.appID(out)
	out, err = y.ebb(ctx, "dag", "submit", "--app", "session", "--wait", "--output", local(), spec)
	t.Logf("ebb dag submit --app session (one running):\n%s", out)
	if err != nil || !strings.Contains(out, "SUCCEEDED") {
		t.Fatalf("second DAG, through session discovery: %v", err)
	}
	if strings.Contains(out, "started ebb session") {
		t.Errorf("discovery started a new session instead of finding %s", id)
	}
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", local(), spec)
	t.Logf("ebb dag submit --app %s:\n%s", id, out)
	if err != nil || !strings.Contains(out, "dag_0003 SUCCEEDED") {
		t.Fatalf("third DAG, by application id, to the same AM: %v", err)
	}
	// A DAG no container can hold ends at once, naming the limit, and the
	// session goes on.
	big := y.writeDAG(fmt.Sprintf(`
name: too-big
containerGroup: {name: big, workerMemoryMB: %d}
vertices:
  - {name: burn, command: [ebb, task, burn], parallelism: 1, memoryMB: 128}
`, testcluster.MaxAllocationMB(t)+1024))
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", big)
	t.Logf("ebb dag submit --app %s too-big:\n%s", id, out)
	if err == nil || !strings.Contains(out, "yarn.scheduler.maximum-allocation-mb") {
		t.Errorf("a DAG above the largest container: %v", err)
	}
	lastDAG := time.Now()
	y.waitFor("the idle session to finish", 60*time.Second, func() bool { return y.report(id).State.Done() })
	gone := time.Since(lastDAG)
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded || !strings.Contains(r.Diagnostics, "idle") {
		t.Errorf("the session ended %s %s (%s), want FINISHED SUCCEEDED after idling", r.State, r.Final, r.Diagnostics)
	}
	// The client saw the DAG end up to one 500 ms status poll after it
	// did, so the session may end up to that much sooner by this clock.
	if gone < idle-time.Second {
		t.Errorf("the session ended %s after its last DAG, before the idle timeout %s", gone, idle)
	}
	y.waitFor("every container released", 30*time.Second, func() bool { return y.runningContainers(id) == 0 })
	if ok, err := y.fs.Exists(yarnclient.StagingDir(y.user, id)); err != nil || ok {
		t.Errorf("staging dir %s still exists (%v)", yarnclient.StagingDir(y.user, id), err)
	}
}
