package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/yarnclient"
)

// TestYarnAMKilledBeforeAMWorkerRegistered is issue 27's crash test of
// small DAGs in the AM's container: the AM has started its in-AM worker
// and is killed -9 before that worker registered (ebb.fault.am.hold.at=
// amworker-started holds it there); in the second case the in-AM worker
// is killed -9 first, then the AM. Attempt 2 must run the DAG to
// SUCCEEDED (it starts an in-AM worker of its own), its output exactly the
// test's own word count, and no process of the application may be left:
// the first in-AM worker ends with its AM, and nothing runs once the
// application finished.
func TestYarnAMKilledBeforeAMWorkerRegistered(t *testing.T) {
	for _, c := range []struct {
		name        string
		killWorker1 bool
	}{{"am", false}, {"amworker-then-am", true}} {
		t.Run(c.name, func(t *testing.T) { yarnKillBeforeAMWorker(t, "uber-kill-"+c.name, c.killWorker1) })
	}
}

var amWorkerPIDRe = regexp.MustCompile(`AM held at amworker-started \(in-AM worker (\S+) started, pid (\d+)`)

func yarnKillBeforeAMWorker(t *testing.T, name string, killWorker bool) {
	y := newYarnTest(t)
	text := wordCountInput(t)
	y.putInput("part-0.txt", text)
	spec := y.writeDAG(fmt.Sprintf(`
name: %s
containerGroup: {name: wc, workerMemoryMB: 512}
output: %s
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 1, memoryMB: 128, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 128}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, name, y.fs.URL(y.dir+"/out"), y.fs.URL(y.dir+"/input")))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id, followed := y.submitFollowed(ctx, name, append(append([]string{spec}, amSets...),
		"--set", "mr3.am.max.app.attempts=2", "--set", "ebb.am.uber.enabled=true", "--set", "ebb.am.uber.memory.mb=512",
		"--set", "ebb.fault.am.hold.at="+am.HoldAMWorkerStarted)...)
	y.waitFor("attempt 1 to hold with its in-AM worker started", 150*time.Second, func() bool {
		return y.amLogSays(id, "AM held at "+am.HoldAMWorkerStarted)
	})
	m := amWorkerPIDRe.FindStringSubmatch(y.amLog(id))
	if m == nil {
		t.Fatalf("the AM log does not name the in-AM worker's pid:\n%s", y.amLog(id))
	}
	worker := m[1]
	pid, _ := strconv.Atoi(m[2])
	if !isWorkerProc(pid, worker) {
		y.kill9AM(id) // not left held
		t.Fatalf("in-AM worker %s (pid %d) is not running at the hold: the test cannot tell", worker, pid)
	}
	// The hold is in the DAG's acceptance (its first StartAMWorker): kill
	// only once the acceptance is durable, so that attempt 2 recovers the
	// DAG rather than the client submitting it again.
	y.waitFor("the DAG's acceptance in the recovery log", 30*time.Second, func() bool {
		return y.recordedDAGs(id) == 1
	})
	if killWorker {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 of the in-AM worker %d: %v", pid, err)
		}
		t.Logf("kill -9 of in-AM worker %s (pid %d)", worker, pid)
	}
	y.kill9AM(id)
	res := <-followed
	y.wantSucceeded(t, id, res, true)
	if log := y.amLogOf(id, 2); !strings.Contains(log, "DAG dag_0001 ("+name+") recovered") {
		t.Errorf("attempt 2 did not recover the DAG (its log:\n%s)", log)
	}
	got := y.hdfsCounts(y.dir + "/out")
	sameCounts(t, got, countText(string(text)))
	// Nothing of the application runs once it finished: not the first
	// in-AM worker (whose AM died under it), not the second attempt's.
	y.waitFor("no process of the application to be left", 30*time.Second, func() bool {
		return !isWorkerProc(pid, worker) && len(appProcs(id)) == 0
	})
}

// isWorkerProc says whether pid is still the `ebb worker` named worker.
func isWorkerProc(pid int, worker string) bool {
	line, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && strings.Contains(string(line), "\x00--worker-id\x00"+worker+"\x00")
}

// appProcs lists the processes on this machine whose command line names
// a container of the application (an `ebb worker --container-id ...`, an
// in-AM worker among them).
func appProcs(id yarn.AppID) []string {
	containers := "container_" + strings.TrimPrefix(id.String(), "application_") + "_"
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		line, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(line), containers) && !strings.Contains(string(line), "go\x00test") {
			out = append(out, filepath.Base(filepath.Dir(f))+": "+strings.ReplaceAll(string(line), "\x00", " "))
		}
	}
	return out
}

// amLogOf is the am.log of the application's AM attempt n ("" if none).
func (y *yarnTest) amLogOf(id yarn.AppID, n int) string {
	for _, cs := range y.containerLogs(id) {
		for _, c := range cs {
			if strings.HasSuffix(c, fmt.Sprintf("_%02d_000001", n)) {
				b, _ := os.ReadFile(filepath.Join(c, "am.log"))
				return string(b)
			}
		}
	}
	return ""
}

// secondAMRan says whether the application's second AM attempt had a
// container (its AM's is container_..._02_000001).
func (y *yarnTest) secondAMRan(id yarn.AppID) bool {
	for _, cs := range y.containerLogs(id) {
		for _, c := range cs {
			if strings.HasSuffix(c, "_02_000001") {
				return true
			}
		}
	}
	return false
}

// recordedDAGs counts the DAGAccepted records in the application's
// recovery log, as the next AM attempt would read it.
func (y *yarnTest) recordedDAGs(id yarn.AppID) int {
	_, _, recs, _, err := recovery.Open(hdfsfs.RecoveryLog{FS: y.fs}, yarnclient.StagingDir(y.user, id)+"/recovery")
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range recs {
		if r.DAGAccepted != nil {
			n++
		}
	}
	return n
}
