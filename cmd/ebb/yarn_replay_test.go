package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/eventlog"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amhost"
)

// TestYarnEventLogReplays records a run on the minicluster — a DAG whose
// group scales out to two workers, one of which is killed -9 so that its
// attempts are retried elsewhere — and replays the recorded events through
// a new core: the replay prints the live AM's actions byte for byte. A log
// with one event changed replays differently, so the comparison can fail.
func TestYarnEventLogReplays(t *testing.T) {
	y := newYarnTest(t)
	spec := y.writeDAG(`
name: replayed
containerGroup: {name: burners, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "12"], parallelism: 4, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	hist := y.dir + "/history"
	args := append([]string{"submit", spec, "--detach", "--set", "ebb.am.event.log.enabled=true", "--set", "ebb.history.dir=" + hist}, amSets...)
	out, err := y.ebb(ctx, args...)
	if err != nil {
		t.Fatalf("ebb submit --detach: %v\n%s", err, out)
	}
	id := y.appID(out)
	running := regexp.MustCompile(`: 0/4 tasks, 4 running`)
	y.waitFor("four tasks running on two workers", 90*time.Second, func() bool {
		out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		return err == nil && running.MatchString(out)
	})
	workers := y.workerPIDs(id)
	if len(workers) != 2 {
		t.Fatalf("worker processes %v, want two (the scale-out)", workers)
	}
	if err := syscall.Kill(workers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	y.waitFor("the application to end", 3*time.Minute, func() bool { return y.report(id).State.Done() })
	if r := y.report(id); r.Final != yarn.Succeeded {
		t.Fatalf("application ended %s %s: %s", r.State, r.Final, r.Diagnostics)
	}
	log, err := y.fs.ReadFile(amhost.EventLogPath(hist+"/"+id.String(), 1))
	if err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(t.TempDir(), "events.log")
	_ = os.WriteFile(keep, log, 0o600) // for a failure's post-mortem
	var recorded, replayed bytes.Buffer
	if err := eventlog.Recorded(bytes.NewReader(log), &recorded); err != nil {
		t.Fatal(err)
	}
	if err := eventlog.Replay(bytes.NewReader(log), replayCore, &replayed); err != nil {
		t.Fatal(err)
	}
	rec := recorded.String()
	for _, want := range []string{" WantWorkers {\"Group\":{\"Name\":\"burners\"", `"Total":2`, "_0\",", "_1\","} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recorded actions lack %q (a scale-out to two workers, a retried attempt)", want)
		}
	}
	if !bytes.Contains(log, []byte(" WorkerGone {")) {
		t.Errorf("the log records no lost worker")
	}
	t.Logf("%d bytes of log, %d action lines", len(log), strings.Count(rec, "\n"))
	if replayed.String() != rec {
		t.Fatalf("the replay's actions differ from the live AM's:\n%s", firstDiff(rec, replayed.String()))
	}
	// One event changed (the lost worker is another, unknown one): the
	// replay no longer matches.
	changed := bytes.Replace(log, []byte(" WorkerGone {\"Worker\":\""), []byte(" WorkerGone {\"Worker\":\"x"), 1)
	var again bytes.Buffer
	if err := eventlog.Replay(bytes.NewReader(changed), replayCore, &again); err != nil {
		t.Fatal(err)
	}
	if again.String() == rec {
		t.Fatal("a log with a changed event replays to the same actions")
	}
	t.Logf("with one event changed, the replay differs:\n%s", firstDiff(rec, again.String()))
}

// firstDiff shows where two texts first differ, by line.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "one is a prefix of the other (" + strconv.Itoa(len(al)) + " and " + strconv.Itoa(len(bl)) + " lines)"
}

// workerPIDs are the application's `ebb worker` processes, from the
// NodeManagers' container pid files (the container's command execs ebb).
func (y *yarnTest) workerPIDs(id yarn.AppID) []int {
	y.t.Helper()
	return y.containerPIDs(id, "ebb\x00worker")
}
