package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/rolllog"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// yarnLogs runs Hadoop's own `yarn logs -applicationId ID` (LogsCLI) with
// the minicluster's java and class path and the cluster's HADOOP_CONF_DIR
// first on the class path, as the yarn script would.
func (y *yarnTest) yarnLogs(ctx context.Context, id yarn.AppID, args ...string) (string, error) {
	env := testcluster.Env(y.t)
	if env["JAVA"] == "" || env["CLASSPATH"] == "" {
		y.t.Fatalf("cluster.env names no JAVA and CLASSPATH: restart the cluster with this checkout's scripts/minicluster/start.sh")
	}
	args = append([]string{"-cp", y.confDir + ":" + env["CLASSPATH"], "org.apache.hadoop.yarn.client.cli.LogsCLI",
		"-applicationId", id.String()}, args...)
	cmd := exec.CommandContext(ctx, env["JAVA"], args...)
	cmd.Env = append(os.Environ(), "HADOOP_CONF_DIR="+y.confDir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// logSection is the head of each file LogsCLI prints: the container, where
// the text came from (AGGREGATED: from HDFS, uploaded by a NodeManager;
// LOCAL: read from a NodeManager's log dir) and the file's name.
var logSection = regexp.MustCompile(`(?m)^Container: (\S+) on \S+\nLogAggregationType: (\S+)\n=+\nLogType:(\S+)$`)

type section struct{ container, kind, file string }

func sections(out string) []section {
	var s []section
	for _, m := range logSection.FindAllStringSubmatch(out, -1) {
		s = append(s, section{m[1], m[2], m[3]})
	}
	return s
}

var rolledWorkerLog = regexp.MustCompile(`^worker\.log\.[0-9]{4,}$`)

// The acceptance of issue 24 item 4 on real YARN with log aggregation on
// (the minicluster's NodeManagers upload rolled logs every few seconds):
// a session whose worker.log rolls after 1 KB; while it still runs,
// `yarn logs -applicationId` shows a rolled worker log that the
// NodeManager aggregated into HDFS.
func TestYarnRolledLogsAggregatedWhileRunning(t *testing.T) {
	y := newYarnTest(t)
	if testcluster.EnvValue(t, "LOG_AGGREGATION") != "true" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the cluster does not aggregate logs (LOG_AGGREGATION in cluster.env): restart it with this checkout's scripts/minicluster/start.sh")
		}
		t.Skip("SKIP: the cluster does not aggregate logs (LOG_AGGREGATION in cluster.env); restart it with this checkout's scripts/minicluster/start.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--set", "ebb.session.idle.timeout.secs=300",
		"--set", "ebb.log.roll.size.kb=1", "--set", "ebb.log.roll.count=1000"}, amSets...)...)
	t.Logf("ebb submit --detach (a session):\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	t.Cleanup(func() {
		kctx, kcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer kcancel()
		_, _ = y.rm.Kill(kctx, id, "test over") // the session would idle for 5 minutes
	})
	// Enough attempts that each worker logs well over 1 KB.
	spec := y.writeDAG(`
name: chatty
containerGroup: {name: c, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0.1"], parallelism: 12, memoryMB: 64}
`)
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", filepath.Join(t.TempDir(), "out"), spec)
	t.Logf("ebb dag submit --app %s:\n%s", id, out)
	if err != nil || !strings.Contains(out, "SUCCEEDED") {
		t.Fatalf("the DAG: %v", err)
	}
	var logs string
	var found section
	y.waitFor("yarn logs to show an aggregated rolled worker log", 90*time.Second, func() bool {
		lctx, lcancel := context.WithTimeout(ctx, 60*time.Second)
		defer lcancel()
		logs, err = y.yarnLogs(lctx, id)
		for _, s := range sections(logs) {
			if err == nil && s.kind == "AGGREGATED" && rolledWorkerLog.MatchString(s.file) {
				found = s
				return true
			}
		}
		return false
	})
	// Uploaded while it runs: the session and the worker whose rolled log
	// it is are still up (a container that ended has all its files
	// aggregated, rolled or not).
	if r := y.report(id); r.State != yarn.StateRunning {
		t.Errorf("the session is %s, want RUNNING: rolling aggregation is about logs of a running application", r.State)
	}
	if live := y.liveContainers(id); !slices.Contains(live, found.container) {
		t.Errorf("worker %s is no longer live (live: %v): its logs were aggregated as it ended, not rolled", found.container, live)
	}
	var heads []string
	for _, s := range sections(logs) {
		heads = append(heads, fmt.Sprintf("%s %s %s", s.container, s.kind, s.file))
		// The NodeManager deletes what it uploads while the application
		// runs: a file still being written must never be among them.
		if s.kind == "AGGREGATED" && (s.file == rolllog.WorkerFile || s.file == rolllog.AMFile) {
			t.Errorf("%s of %s was aggregated while being written", s.file, s.container)
		}
	}
	t.Logf("yarn logs -applicationId %s (LogsCLI) printed %d files:\n%s\nthe first aggregated rolled worker log:\n%s",
		id, len(heads), strings.Join(heads, "\n"), excerpt(logs, found))
}

// excerpt is s's part of LogsCLI's output: its head and its first lines.
func excerpt(out string, s section) string {
	head := fmt.Sprintf("Container: %s on ", s.container)
	lines := strings.Split(out, "\n")
	for i := range lines {
		if strings.HasPrefix(lines[i], head) && i+3 < len(lines) && lines[i+1] == "LogAggregationType: "+s.kind && lines[i+3] == "LogType:"+s.file {
			return strings.Join(lines[i:min(i+12, len(lines))], "\n")
		}
	}
	return ""
}
