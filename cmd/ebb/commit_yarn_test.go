package main

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// hdfsTree reads every file under dir in HDFS: relative path -> content.
func (y *yarnTest) hdfsTree(dir string) map[string]string {
	y.t.Helper()
	fs := y.fs.CommitFS()
	out := map[string]string{}
	var walk func(d, rel string)
	walk = func(d, rel string) {
		es, err := fs.ReadDir(d)
		if err != nil {
			y.t.Fatalf("reading hdfs %s: %v", d, err)
		}
		for _, e := range es {
			if e.Dir {
				walk(path.Join(d, e.Name), path.Join(rel, e.Name))
				continue
			}
			b, err := y.fs.ReadFile(path.Join(d, e.Name))
			if err != nil {
				y.t.Fatal(err)
			}
			out[path.Join(rel, e.Name)] = string(b)
		}
	}
	walk(dir, "")
	return out
}

// The rerun of issue 12 on the minicluster, through ebb submit with the
// output in HDFS: the second submit into the same output fails at once,
// before any application is asked for, naming the directory and
// --overwrite; with --overwrite and one reducer the directory holds exactly
// the new 72 lines and _SUCCESS; a DAG killed half-way (one sink task
// staged, one running) leaves that output byte-identical.
func TestYarnRerunIntoTheSameOutput(t *testing.T) {
	y := newYarnTest(t)
	text := wordCountInput(t)
	y.putInput("words.txt", text)
	out := y.dir + "/wc-out"
	wordcount := func(reducers int) string {
		return y.writeDAG(fmt.Sprintf(`
name: rerun
containerGroup: {name: rr, workerMemoryMB: 512}
output: %s
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 2, memoryMB: 256, inputs: ["%s"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: %d, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`, y.fs.URL(out), y.fs.URL(y.dir+"/input"), reducers))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	submit := func(args ...string) (string, error) {
		start := time.Now()
		log, err := y.ebb(ctx, append(append([]string{"submit"}, args...), amSets...)...)
		t.Logf("ebb submit %s (%s, %v):\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), err, log)
		return log, err
	}
	want := countText(string(text))

	if _, err := submit(wordcount(2)); err != nil {
		t.Fatal(err)
	}
	first := y.hdfsTree(out)
	if got := names(first); !reflect.DeepEqual(got, []string{"_SUCCESS", "part-00000", "part-00001"}) {
		t.Fatalf("first run left %v", got)
	}
	if n := lineCount(first); n != 72 || len(want) != 72 {
		t.Fatalf("first run: %d lines for %d distinct words, want 72", n, len(want))
	}

	log, err := submit(wordcount(2))
	if err == nil {
		t.Fatal("the second submit into the same output succeeded")
	}
	if !strings.Contains(log, y.fs.URL(out)) || !strings.Contains(log, "--overwrite") {
		t.Errorf("the refusal does not name %s and --overwrite", y.fs.URL(out))
	}
	if appIDRe.MatchString(log) {
		t.Errorf("the refused DAG got an application")
	}
	if got := y.hdfsTree(out); !reflect.DeepEqual(got, first) {
		t.Errorf("the refused submit changed the output: %v", names(got))
	}

	if _, err := submit(wordcount(1), "--overwrite"); err != nil {
		t.Fatal(err)
	}
	second := y.hdfsTree(out)
	if got := names(second); !reflect.DeepEqual(got, []string{"_SUCCESS", "part-00000"}) {
		t.Fatalf("after the overwrite the output holds %v, want part-00000 and _SUCCESS", got)
	}
	if n := lineCount(second); n != 72 {
		t.Errorf("after the overwrite: %d lines, want 72", n)
	}
	sameCounts(t, y.hdfsCounts(out), want)

	halfway := y.writeDAG(fmt.Sprintf(`
name: halfway
containerGroup: {name: hw, workerMemoryMB: 512}
output: %s
vertices:
  - name: sink
    command: 'if [ "$EBB_TASK_INDEX" = 1 ]; then sleep 600; fi; echo new > "$EBB_OUTPUT_DIR/part"'
    parallelism: 2
    memoryMB: 128
`, y.fs.URL(out)))
	log, err = submit(halfway, "--overwrite", "--detach")
	if err != nil {
		t.Fatal(err)
	}
	id := y.appID(log)
	staged := regexp.MustCompile(`dag_\d+ halfway RUNNING: 1/2 tasks, 1 running`)
	var dagID string
	y.waitFor("sink task 0 staged and task 1 running", 2*time.Minute, func() bool {
		st, err := y.ebb(ctx, "dag", "status", "--app", id.String())
		if err != nil || !staged.MatchString(st) {
			return false
		}
		dagID = strings.Fields(staged.FindString(st))[0]
		ok, err := y.fs.Exists(out + "/_temporary")
		return err == nil && ok
	})
	if log, err := y.ebb(ctx, "dag", "kill", "--app", id.String(), dagID); err != nil {
		t.Fatalf("ebb dag kill: %v\n%s", err, log)
	}
	y.waitFor("the application to end", time.Minute, func() bool { return y.report(id).State.Done() })
	if r := y.report(id); r.Final != yarn.Killed {
		t.Errorf("the application ended %s %s (%s), want KILLED", r.State, r.Final, r.Diagnostics)
	}
	if got := y.hdfsTree(out); !reflect.DeepEqual(got, second) {
		t.Errorf("after the kill the output holds %v, want the previous output byte for byte (%v)", names(got), names(second))
	}
}
