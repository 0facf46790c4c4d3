package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
)

// grantedFiles: a speculative sink of 3 tasks, each writing 20 result
// files; every attempt asks the AM before it commits (speculative: true),
// so the first commit grant comes whatever the speed of the tasks. Each
// run of a task appends its attempt to a local file (the minicluster's
// containers run on this machine), which counts runs even when a re-run
// reuses an attempt id.
const grantedFiles = `
name: granted
containerGroup: {name: g, workerMemoryMB: 512}
output: %s
vertices:
  - name: w
    command: 'echo $EBB_TASK_INDEX $EBB_ATTEMPT_ID >> %s; for i in $(seq 1 20); do echo $EBB_TASK_INDEX-$i > $EBB_OUTPUT_DIR/f$i; done'
    parallelism: 3
    memoryMB: 128
    speculative: true
`

// TestYarnAMKilledAroundCommitGrant is issue 27's crash test of the
// commit grant of speculative sinks: kill -9 of the AM right after it
// granted an attempt its commit (the worker commits while no AM runs, or
// while the dead one is frozen), and again when the granted attempt
// reported its files committed but before the AM (its core, its recovery
// log) heard it. Attempt 2 takes the workers over and must end the
// application SUCCEEDED with each task's files exactly once: none missing,
// none twice, none half-written, nothing left beside the output; and the
// granted task ran once (its attempt was adopted, not run again).
func TestYarnAMKilledAroundCommitGrant(t *testing.T) {
	for _, step := range []string{am.HoldCommitGranted, am.HoldCommitReported} {
		t.Run(step, func(t *testing.T) { yarnKillAroundGrant(t, step) })
	}
}

var grantedRe = regexp.MustCompile(`AM held at commit-(?:granted|reported) \((?:commit granted to )?attempt ([^\s;]+)`)

func yarnKillAroundGrant(t *testing.T, step string) {
	y := newYarnTest(t)
	out := y.dir + "/out"
	runsFile := filepath.Join(t.TempDir(), "runs")
	spec := y.writeDAG(fmt.Sprintf(grantedFiles, y.fs.URL(out), runsFile))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id, followed := y.submitFollowed(ctx, "granted", append(append([]string{spec}, amSets...),
		"--set", "mr3.am.max.app.attempts=2", "--set", "ebb.fault.am.hold.at="+step)...)
	y.waitFor("attempt 1 to hold at "+step, 150*time.Second, func() bool {
		return y.amLogSays(id, "AM held at "+step)
	})
	m := grantedRe.FindStringSubmatch(y.amLog(id))
	if m == nil {
		t.Fatalf("the AM log does not name the attempt granted its commit:\n%s", y.amLog(id))
	}
	granted := m[1]
	t.Logf("attempt 1 held at %s, attempt %s granted", step, granted)
	y.kill9AM(id)
	res := <-followed
	t.Logf("the following ebb submit said (%v):\n%s", res.err, res.out)
	if res.err != nil {
		t.Errorf("ebb submit: %v, want exit 0", res.err)
	}
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
		t.Fatalf("application %s %s (%s), want FINISHED SUCCEEDED", r.State, r.Final, r.Diagnostics)
	}
	if !y.secondAMRan(id) {
		t.Errorf("no second AM attempt ran: the test did not kill the AM where it meant to")
	}
	checkGrantedOutput(t, y, out)
	// Each task ran once: attempt 2 adopted the attempts of attempt 1
	// (the granted one's result came back from its worker) instead of
	// running any again.
	b, err := os.ReadFile(runsFile)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		task, attempt, _ := strings.Cut(line, " ")
		runs[task] = append(runs[task], attempt)
	}
	t.Logf("runs by task: %v", runs)
	for _, task := range []string{"0", "1", "2"} {
		if len(runs[task]) != 1 {
			t.Errorf("task %s ran %d times (%v), want once (the granted attempt was %s)", task, len(runs[task]), runs[task], granted)
		}
	}
}

// checkGrantedOutput: out holds _SUCCESS, this DAG's commit marker and the
// 3 tasks' 20 files each, each as its task wrote it, and nothing else;
// nothing is left beside it.
func checkGrantedOutput(t *testing.T, y *yarnTest, out string) {
	t.Helper()
	got := y.hdfsTree(out)
	if s, ok := got[commit.SuccessMarker]; !ok || s != "" {
		t.Errorf("_SUCCESS: present %v, holding %q; want it there and empty", ok, s)
	}
	delete(got, commit.SuccessMarker)
	markers := 0
	for name := range got {
		if strings.HasPrefix(name, "_ebb-commit-") {
			markers++
			delete(got, name)
		}
	}
	if markers != 1 {
		t.Errorf("%d commit markers in the output, want this DAG's one", markers)
	}
	missing, wrong := 0, 0
	for task := range 3 {
		for i := 1; i <= 20; i++ {
			name := fmt.Sprintf("f%d-%05d", i, task)
			g, ok := got[name]
			switch {
			case !ok:
				missing++
			case g != fmt.Sprintf("%d-%d\n", task, i):
				wrong++
			}
			delete(got, name)
		}
	}
	if missing > 0 || wrong > 0 || len(got) > 0 {
		t.Errorf("the output misses %d of the 60 results, has %d wrong, and %d others (%v)", missing, wrong, len(got), keysOf(got))
	}
	es, err := y.fs.CommitFS().ReadDir(y.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Name != "out" {
			t.Errorf("%s/%s is left beside the output", y.dir, e.Name)
		}
	}
}
