package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
)

// manyFiles: 4 sink tasks, each writing 100 result files: 400 in all.
const manyFiles = `
name: many
containerGroup: {name: g, workerMemoryMB: 512}
output: %s
overwrite: true
vertices:
  - name: w
    command: 'for i in $(seq 1 100); do echo $EBB_TASK_INDEX-$i > $EBB_OUTPUT_DIR/f$i; done'
    parallelism: 4
    memoryMB: 128
`

// TestYarnAMKilledWhileCommitting is issue 24's end-to-end crash test: kill
// -9 of the AM in the middle of promoting a DAG's 400 result files over an
// old output (after the old output went aside and before the new one is in
// place), and again after the promotion finished but before the DAG's end
// record was written. Each time attempt 2 ends the application SUCCEEDED,
// ebb submit exits 0, and the output holds exactly the 400 new results and
// _SUCCESS (and the marker naming the commit): no old file, no half, nothing left beside it.
func TestYarnAMKilledWhileCommitting(t *testing.T) {
	for _, step := range []commit.Step{commit.StepAside, commit.StepCleaned} {
		t.Run(string(step), func(t *testing.T) { yarnKillWhileCommitting(t, step) })
	}
}

func yarnKillWhileCommitting(t *testing.T, step commit.Step) {
	y := newYarnTest(t)
	out := y.dir + "/out"
	if err := y.fs.CommitFS().MkdirAll(out); err != nil {
		t.Fatal(err)
	}
	old := map[string]string{"f1-00000": "old", "f2-00000": "old", "extra-00009": "old", "_SUCCESS": ""}
	for name, body := range old {
		if _, err := y.fs.WriteFile(out+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := y.writeDAG(fmt.Sprintf(manyFiles, y.fs.URL(out)))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	id, followed := y.submitFollowed(ctx, "many", append(append([]string{spec}, amSets...), "--set", "mr3.am.max.app.attempts=2",
		"--set", "ebb.fault.commit.hold.after="+string(step))...)
	held := "commit held after " + string(step)
	y.waitFor("attempt 1 to hold its commit after "+string(step), 150*time.Second, func() bool {
		return y.amLogSays(id, held)
	})
	y.kill9AM(id)
	res := <-followed
	y.wantSucceeded(t, id, res, false)
	got := y.hdfsTree(out)
	takeCommitMarkers(t, got)
	want := map[string]string{}
	for task := range 4 {
		for i := 1; i <= 100; i++ {
			want[fmt.Sprintf("f%d-%05d", i, task)] = fmt.Sprintf("%d-%d\n", task, i)
		}
	}
	missing, wrong := 0, 0
	for name, body := range want {
		g, ok := got[name]
		switch {
		case !ok:
			missing++
		case g != body:
			wrong++
		}
		delete(got, name)
	}
	if missing > 0 || wrong > 0 || len(got) > 0 {
		t.Errorf("the output misses %d of the 400 results, has %d wrong, and %d others (%v)", missing, wrong, len(got), keysOf(got))
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

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// amLogSays reports whether any log file of the application's containers
// (the AM's among them) holds s.
func (y *yarnTest) amLogSays(id yarn.AppID, s string) bool {
	for _, cs := range y.containerLogs(id) {
		for _, c := range cs {
			files, _ := filepath.Glob(filepath.Join(c, "*"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err == nil && strings.Contains(string(b), s) {
					return true
				}
			}
		}
	}
	return false
}
