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
name: %s
containerGroup: {name: g, workerMemoryMB: 512}
output: %s
vertices:
  - name: w
    command: 'echo $EBB_TASK_INDEX $EBB_ATTEMPT_ID >> %s; for i in $(seq 1 20); do echo $EBB_TASK_INDEX-$i > $EBB_OUTPUT_DIR/f$i; done'
    parallelism: 3
    memoryMB: 128
    speculative: true
`

// racedFiles: the same with a real race. Task 0's first attempt says it
// is 90% done and takes 20 s; task 1's says 1% and would take 120 s, a
// straggler, so task 1 gets a backup (attempt 1), which writes its files
// at once and asks first: the first grant of the DAG goes to a race's
// winner, and the original, its files written but not committed, is
// killed as the loser. Each file says which attempt wrote it.
const racedFiles = `
name: %s
containerGroup: {name: g, workerMemoryMB: 256}
output: %s
vertices:
  - name: w
    command: 'echo $EBB_TASK_INDEX $EBB_ATTEMPT >> %s; for i in $(seq 1 20); do echo $EBB_TASK_INDEX-$i-$EBB_ATTEMPT > $EBB_OUTPUT_DIR/f$i; done; if [ $EBB_ATTEMPT = 0 ]; then if [ $EBB_TASK_INDEX = 0 ]; then echo 0.9 > $EBB_PROGRESS_FILE; sleep 20; else echo 0.01 > $EBB_PROGRESS_FILE; sleep 120; fi; fi'
    parallelism: 2
    memoryMB: 256
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
//
// In the race cases the grant goes to a backup whose original attempt 1
// killed as the loser: the loser's files, written but never committed,
// must not appear, and no task runs a third time.
func TestYarnAMKilledAroundCommitGrant(t *testing.T) {
	for _, step := range []string{am.HoldCommitGranted, am.HoldCommitReported} {
		t.Run(step, func(t *testing.T) { yarnKillAroundGrant(t, step, false) })
		t.Run(step+"-race", func(t *testing.T) { yarnKillAroundGrant(t, step, true) })
	}
}

var grantedRe = regexp.MustCompile(`AM held at commit-(?:granted|reported) \((?:commit granted to )?attempt ([^\s;]+)`)

func yarnKillAroundGrant(t *testing.T, step string, race bool) {
	y := newYarnTest(t)
	out := y.dir + "/out"
	runsFile := filepath.Join(t.TempDir(), "runs")
	dag, tasks := grantedFiles, 3
	sets := append(append([]string{}, amSets...), "--set", "mr3.am.max.app.attempts=2", "--set", "ebb.fault.am.hold.at="+step)
	if race {
		// uniform: one attempt per worker, spread over the nodes; the
		// backup gets a worker off the straggler's node.
		dag, tasks = racedFiles, 2
		sets = append(sets, "--set", "ebb.speculation.min.runtime.ms=1500", "--set", "ebb.packing.scheme=uniform")
	}
	// A name of its own: submitFollowed finds the application by name.
	name := "granted-" + step
	if race {
		name += "-race"
	}
	spec := y.writeDAG(fmt.Sprintf(dag, name, y.fs.URL(out), runsFile))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id, followed := y.submitFollowed(ctx, name, append([]string{spec}, sets...)...)
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
	if race && !strings.HasSuffix(granted, "_w_000001_1") {
		t.Fatalf("the first grant went to %s, not to task 1's backup: no race to test", granted)
	}
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
	checkGrantedOutput(t, y, out, tasks, func(task, i int) string {
		if !race {
			return fmt.Sprintf("%d-%d\n", task, i)
		}
		return fmt.Sprintf("%d-%d-%d\n", task, i, task) // task 0's original, task 1's backup
	})
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
	want := map[string]int{"0": 1, "1": 1, "2": 1}
	if race {
		want = map[string]int{"0": 1, "1": 2} // task 1: the loser and its backup
	}
	for task, n := range want {
		if len(runs[task]) != n {
			t.Errorf("task %s ran %d times (%v), want %d (the granted attempt was %s)", task, len(runs[task]), runs[task], n, granted)
		}
	}
}

// checkGrantedOutput: out holds _SUCCESS, this DAG's commit marker and the
// tasks' 20 files each, file i of task k holding body(k, i), and nothing
// else; nothing is left beside it.
func checkGrantedOutput(t *testing.T, y *yarnTest, out string, tasks int, body func(task, i int) string) {
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
	for task := range tasks {
		for i := 1; i <= 20; i++ {
			name := fmt.Sprintf("f%d-%05d", i, task)
			g, ok := got[name]
			switch {
			case !ok:
				missing++
			case g != body(task, i):
				wrong++
				t.Logf("%s holds %q, want %q", name, g, body(task, i))
			}
			delete(got, name)
		}
	}
	if missing > 0 || wrong > 0 || len(got) > 0 {
		t.Errorf("the output misses %d of the %d results, has %d wrong, and %d others (%v)", missing, 20*tasks, wrong, len(got), keysOf(got))
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
