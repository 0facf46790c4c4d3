package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// The straggler test of speculative execution, on the minicluster: one
// NodeManager's tasks are made slow (burn --slow-node holds --slow-factor
// times longer there, from the NM_HOST and NM_PORT YARN gives the
// container). In one session the same DAG runs with no straggler, with a
// straggler and speculation on, and with a straggler and speculation off
// (the vertex's speculative: overrides the session's key). The times are
// logged; the test holds that speculation finished sooner than no
// speculation, that backups ran and won, and that the output of every run
// is the same, each input line exactly once.
func TestYarnSpeculationStraggler(t *testing.T) {
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const maps, reduces, lines = 9, 3, 40
	if err := y.fs.MkdirPrivate(y.dir + "/input"); err != nil {
		t.Fatal(err)
	}
	var input strings.Builder
	for i := 0; i < maps; i++ {
		var part strings.Builder
		for j := 0; j < lines; j++ {
			fmt.Fprintf(&part, "line %d of part %d\n", j, i)
		}
		input.WriteString(part.String())
		if _, err := y.fs.WriteFile(fmt.Sprintf("%s/input/part-%d.txt", y.dir, i), []byte(part.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := fmt.Sprintf("spec-%d", time.Now().UnixNano())
	args := append([]string{"submit", "--detach", "--name", name}, amSets...)
	// uniform: spread the attempts over the workers' nodes (packed would
	// fill the straggler's node first). The keys' cap and minimum allowed
	// (10 backups at once) let the stragglers of one slow node out of
	// three all run backups; the minimum run time is short because the
	// tasks are.
	args = append(args, "--set", "ebb.speculation.enabled=true",
		"--set", "ebb.speculation.min.runtime.ms=1500", "--set", "ebb.packing.scheme=uniform",
		"--set", "ebb.session.idle.timeout.secs=120")
	out, err := y.ebb(ctx, args...)
	if err != nil {
		t.Fatalf("starting the session: %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()

	// Workers of 2048 MB, four 512 MB tasks each: the nine maps want three,
	// and a NodeManager (4096 MB, the AM's container on one) holds at most
	// two, so they are on at least two nodes.
	spec := func(slowNode, speculative string) string {
		slow := ""
		if slowNode != "" {
			slow = fmt.Sprintf(", --slow-node, %q, --slow-factor, \"5\"", slowNode)
		}
		return y.writeDAG(fmt.Sprintf(`
name: straggler
containerGroup: {name: sp, workerMemoryMB: 2048}
vertices:
  - {name: map, command: [ebb, task, burn, --seconds, "6"%[1]s], parallelism: %[2]d, memoryMB: 512, inputs: [%[3]q], speculative: %[5]s}
  - {name: reduce, command: [ebb, task, burn, --seconds, "3"%[1]s], parallelism: %[4]d, memoryMB: 512, speculative: %[5]s}
edges: [{from: map, to: reduce, type: scatter-gather}]
`, slow, maps, y.fs.URL(y.dir+"/input/part-*.txt"), reduces, speculative))
	}
	run := func(what, spec string) (time.Duration, amclient.DAG, []string) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "out")
		out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", dir, spec)
		t.Logf("%s: ebb dag submit:\n%s", what, out)
		if err != nil || !strings.Contains(out, "SUCCEEDED") {
			t.Fatalf("%s: %v", what, err)
		}
		dags, _, err := y.dagsNow(ctx, id)
		if err != nil || len(dags) == 0 {
			t.Fatalf("%s: listing the session's DAGs: %v", what, err)
		}
		d := dags[0]
		for _, x := range dags {
			if x.Submitted.After(d.Submitted) {
				d = x
			}
		}
		took := d.Finished.Sub(d.Submitted)
		t.Logf("%s: %s took %s; %d backup attempts, %d won, %d lost; %d failed attempts",
			what, d.ID, took.Round(10*time.Millisecond), d.BackupsLaunched, d.BackupsWon, d.BackupsLost, d.FailedAttempts)
		return took, d, outputLines(t, dir)
	}
	// The first DAG starts the workers; the ones after it find them.
	_, _, warm := run("warm-up, no straggler", spec("", "true"))
	slowNode := y.workerNode(ctx, id)
	t.Logf("the straggling NodeManager: %s (of %v)", slowNode, testcluster.NodeIDs(t))
	base, db, baseOut := run("no straggler", spec("", "true"))
	withSpec, ds, specOut := run("straggler, speculation on", spec(slowNode, "true"))
	if slow := y.logAttemptNodes(ctx, id, ds.ID, slowNode); !slices.Contains(slow, slowNode) {
		t.Errorf("%s's slow nodes (api/v1/dags): %v, want the straggling NodeManager %s among them", ds.ID, slow, slowNode)
	}
	if out, err := y.ebb(ctx, "dag", "status", "--app", id.String(), ds.ID); err != nil || !strings.Contains(out, "slow nodes ") || !strings.Contains(out, slowNode) {
		t.Errorf("ebb dag status %s: %v\n%s\nwant its slow nodes, %s among them", ds.ID, err, out, slowNode)
	} else {
		t.Logf("ebb dag status --app %s %s:\n%s", id, ds.ID, out)
	}
	without, dn, noSpecOut := run("straggler, speculation off", spec(slowNode, "false"))
	t.Logf("DAG times: no straggler %s, straggler with speculation %s (%.2fx), straggler without %s (%.2fx)",
		base.Round(10*time.Millisecond), withSpec.Round(10*time.Millisecond), withSpec.Seconds()/base.Seconds(),
		without.Round(10*time.Millisecond), without.Seconds()/base.Seconds())

	if ds.BackupsLaunched == 0 || ds.BackupsWon == 0 || ds.FailedAttempts != 0 {
		t.Errorf("with speculation: %d backups launched, %d won, %d failed attempts; want backups that won and no failure",
			ds.BackupsLaunched, ds.BackupsWon, ds.FailedAttempts)
	}
	if db.BackupsLaunched != 0 {
		t.Errorf("with no straggler, %d backups ran (%d won, %d lost): want none", db.BackupsLaunched, db.BackupsWon, db.BackupsLost)
	}
	if dn.BackupsLaunched != 0 {
		t.Errorf("with the vertices' speculative: false, %d backups ran", dn.BackupsLaunched)
	}
	if withSpec >= without {
		t.Errorf("with speculation the DAG took %s, without %s: want it sooner", withSpec, without)
	}
	want := strings.Split(strings.TrimSuffix(input.String(), "\n"), "\n")
	for i := 0; i < reduces; i++ {
		want = append(want, "burned 0 MB for 3 s")
	}
	sort.Strings(want)
	for _, r := range []struct {
		what string
		got  []string
	}{{"warm-up", warm}, {"no straggler", baseOut}, {"speculation on", specOut}, {"speculation off", noSpecOut}} {
		if strings.Join(r.got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: output has %d lines, want the %d input lines once each and one per reduce:\n%s",
				r.what, len(r.got), len(want), strings.Join(r.got, "\n"))
		}
	}
}

// outputLines reads every line of the part files of a local output, sorted.
func outputLines(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no part files in %s (%v)", dir, err)
	}
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	sort.Strings(lines)
	return lines
}

// workerNode is a NodeManager holding some, not all, of the session's
// workers: the one with the fewest, so that the others have room for
// backups. It fails the test when every worker is on one node.
func (y *yarnTest) workerNode(ctx context.Context, id interface{ String() string }) string {
	y.t.Helper()
	var ws []struct {
		Node string `json:"node"`
	}
	y.getJSON(testcluster.RMWebURL(y.t)+"/proxy/"+id.String()+"/api/v1/workers", &ws)
	count := map[string]int{}
	for _, w := range ws {
		count[w.Node]++
	}
	if len(count) < 2 {
		y.t.Fatalf("the session's workers are all on %v: no node is left for backups", count)
	}
	best := ""
	for n, c := range count {
		if best == "" || c < count[best] || (c == count[best] && n < best) {
			best = n
		}
	}
	y.t.Logf("workers per node: %v", count)
	return best
}

// logAttemptNodes logs where each attempt of DAG dag ran, marking the
// straggling node, so that a run shows whether the reduces kept off it,
// and returns the nodes the AM holds slow for the DAG.
func (y *yarnTest) logAttemptNodes(ctx context.Context, id interface{ String() string }, dag, slowNode string) (slowNodes []string) {
	y.t.Helper()
	var d struct {
		SlowNodes []string `json:"slowNodes"`
		Attempts  []struct {
			Vertex string  `json:"vertex"`
			Task   int     `json:"task"`
			Number int     `json:"number"`
			Node   string  `json:"node"`
			State  string  `json:"state"`
			Secs   float64 `json:"durationSecs"`
		} `json:"attempts"`
	}
	y.getJSON(testcluster.RMWebURL(y.t)+"/proxy/"+id.String()+"/api/v1/dags/"+dag, &d)
	var lines []string
	for _, a := range d.Attempts {
		mark := ""
		if a.Node == slowNode {
			mark = " (the straggling node)"
		}
		lines = append(lines, fmt.Sprintf("%s %d.%d %s %.1fs on %s%s", a.Vertex, a.Task, a.Number, a.State, a.Secs, a.Node, mark))
	}
	sort.Strings(lines)
	y.t.Logf("%s's attempts:\n%s\nslow nodes: %v", dag, strings.Join(lines, "\n"), d.SlowNodes)
	return d.SlowNodes
}
