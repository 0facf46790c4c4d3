package core

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// specOn is speculation as the tests use it: on, the key table's cap,
// minimum allowed and multiplier, a 10 s minimum run time.
func specOn() CoreOptions {
	return CoreOptions{Speculation: SpeculationOptions{Enabled: true, MinRuntime: 10 * time.Second}}
}

// wide is one vertex of n tasks, one per 256 MB worker.
func wide(n int, extra string) string {
	return fmt.Sprintf(`
name: wide
containerGroup: {name: g, workerMemoryMB: 256}
vertices: [{name: v, command: "true", parallelism: %d, memoryMB: 256%s}]
`, n, extra)
}

// byTask maps task index to the running attempts of vertex v.
func (f *fakeWorld) byTask(v string) map[int][]string {
	out := map[int][]string{}
	for _, id := range sortedKeys(f.running) {
		if a := f.c.attempt[id]; a != nil && a.task.vertex.spec.Name == v {
			out[a.task.index] = append(out[a.task.index], id)
		}
	}
	return out
}

// backedTasks are the indexes of v's tasks running a backup, ascending.
func (f *fakeWorld) backedTasks(v string) []int {
	var out []int
	for i, ids := range f.byTask(v) {
		if len(ids) > 1 {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}

// succeedAllBut reports every running first attempt of v succeeded but
// task keep's.
func (f *fakeWorld) succeedAllBut(v string, keep int) {
	for i, ids := range f.byTask(v) {
		if i != keep {
			delete(f.running, ids[0])
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: ids[0], Result: AttemptSucceeded})
		}
	}
}

// report sends a progress report for every running attempt of v: slow
// tasks at their progress, the others at fast.
func (f *fakeWorld) report(v string, fast float64, slow map[int]float64) {
	for i, ids := range f.byTask(v) {
		p, ok := slow[i]
		if !ok {
			p = fast
		}
		for _, id := range ids {
			f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptRunning, Progress: p})
		}
	}
	f.drain()
}

func (f *fakeWorld) nodeOf(attempt string) string {
	return f.c.workers[f.running[attempt]].node.id
}

// startWide runs n tasks on workers w1..wn (nodes n1..nn) and adds spare
// workers on nodes s1..s<spares>, free for backups.
func startWide(t *testing.T, opts CoreOptions, n, spares int, extra string) (*fakeWorld, string) {
	f := newFake(t, opts)
	id := f.submit(wide(n, extra))
	for i := 1; i <= n; i++ {
		f.addWorker(fmt.Sprintf("w%d", i), "g", fmt.Sprintf("n%d", i), 256)
	}
	if len(f.running) != n {
		t.Fatalf("%d attempts running, want %d", len(f.running), n)
	}
	for i := 1; i <= spares; i++ {
		f.addWorker(fmt.Sprintf("spare%d", i), "g", fmt.Sprintf("s%d", i), 256)
	}
	return f, id
}

// A straggler among four tasks gets one backup, on a spare node, marked
// speculative; the fast tasks get none.
func TestStragglerGetsBackup(t *testing.T) {
	f, id := startWide(t, specOn(), 4, 1, "")
	f.tick(20 * time.Second)
	// Rates: three at 0.8/20 s = 0.04/s, task 2 at 0.1/20 s = 0.005/s.
	// The median of [0.005 0.04 0.04 0.04] is 0.04: only task 2's rate
	// times 1.5 (0.0075) is below it, an estimated 200 s against 25 s. Its
	// time left, 200 - 21 = 179 s, beats a fresh attempt's 1 / 0.04 = 25 s.
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	got := f.byTask("v")
	if len(got[2]) != 2 {
		t.Fatalf("task 2 runs %v, want its attempt and a backup (all: %v)", got[2], got)
	}
	for i, ids := range got {
		if i != 2 && len(ids) != 1 {
			t.Errorf("fast task %d got a backup: %v", i, ids)
		}
	}
	backup := got[2][1]
	if f.nodeOf(backup) != "s1" {
		t.Errorf("backup %s on node %s, want the spare node s1", backup, f.nodeOf(backup))
	}
	if r, _ := f.c.Attempt(backup); !r.Speculative {
		t.Errorf("backup's record %+v is not marked speculative", r)
	}
	if st, _ := f.c.DAG(id); st.Speculation.Launched != 1 {
		t.Errorf("DAG's speculation %+v, want 1 launched", st.Speculation)
	}
}

// No attempt is a candidate before it has run the minimum run time,
// however slow it looks.
func TestNoBackupBeforeMinimumRuntime(t *testing.T) {
	o := specOn()
	o.Speculation.MinRuntime = 30 * time.Second
	f, _ := startWide(t, o, 4, 1, "")
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(9 * time.Second) // 29 s run
	if n := len(f.byTask("v")[2]); n != 1 {
		t.Fatalf("task 2 has %d attempts after 29 s, want 1 (minimum 30 s)", n)
	}
	f.tick(time.Second) // 30 s
	if n := len(f.byTask("v")[2]); n != 2 {
		t.Fatalf("task 2 has %d attempts after 30 s, want 2", n)
	}
}

// The cap: with the minimum allowed at one, 10% of 10 tasks is one backup
// at a time, even with three stragglers and three spare workers; it goes
// to the one with the most time left.
func TestBackupsCapped(t *testing.T) {
	o := specOn()
	o.Speculation.MinAllowed = 1
	f, _ := startWide(t, o, 10, 3, "")
	f.tick(20 * time.Second)
	// Task 7 at 0.05 after 20 s has 20 / 0.05 - 21 = 379 s left, tasks 3
	// and 5 at 0.1 have 179 s.
	f.report("v", 0.8, map[int]float64{3: 0.1, 5: 0.1, 7: 0.05})
	f.tick(time.Second)
	backed := f.backedTasks("v")
	if fmt.Sprint(backed) != "[7]" {
		t.Fatalf("tasks with backups %v, want [7] (minimum 1, cap 10%% of 10 = 1, largest time left)", backed)
	}
	f.tick(time.Second)
	if n := len(f.running); n != 11 {
		t.Fatalf("%d attempts running after another tick, want 11 (the cap holds)", n)
	}
}

// A backup never goes to the straggler's own node, nor to a node where
// another straggler runs; a clean node takes it.
func TestBackupAvoidsOwnAndSlowNodes(t *testing.T) {
	f, _ := startWide(t, specOn(), 6, 0, "")
	strag := f.byTask("v")[2][0]
	other := f.byTask("v")[1][0]
	f.addWorker("same", "g", f.nodeOf(strag), 256)
	f.addWorker("slownode", "g", f.nodeOf(other), 256)
	f.tick(20 * time.Second)
	// Rates [0.0025 (task 2) 0.005 (task 1) 0.04 x4]: the median is 0.04,
	// both slow tasks' rates times 1.5 are below it, so both are
	// candidates and both their nodes slow.
	f.report("v", 0.8, map[int]float64{2: 0.05, 1: 0.1})
	f.tick(time.Second)
	if n := len(f.running); n != 6 {
		t.Fatalf("%d attempts running, want 6: the only free workers are on the stragglers' nodes (%v)", n, f.running)
	}
	f.addWorker("clean", "g", "c1", 256)
	f.tick(time.Second)
	got := f.byTask("v")
	// The cap allows ten; the one clean worker takes task 2 (379 s left,
	// the most); task 1 has no room off the slow nodes.
	if len(got[2]) != 2 || len(got[1]) != 1 {
		t.Fatalf("attempts %v, want one backup, for task 2", got)
	}
	if w := f.running[got[2][1]]; w != "clean" {
		t.Errorf("backup %s on worker %s, want clean", got[2][1], w)
	}
}

// The first attempt to finish wins: the backup finishes first, the
// original is killed as the loser, no failure is counted, and a late
// report from the loser changes nothing.
func TestLoserKilledNotFailed(t *testing.T) {
	f, id := startWide(t, specOn(), 4, 1, "")
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	ids := f.byTask("v")[2]
	orig, backup := ids[0], ids[1]
	delete(f.running, backup)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: backup, Result: AttemptSucceeded})
	f.drain()
	if _, ok := f.running[orig]; ok {
		t.Fatalf("original %s still runs after its backup won", orig)
	}
	r, _ := f.c.Attempt(orig)
	if r.State != "KILLED" || !r.Loser {
		t.Errorf("original's record %+v, want KILLED and marked the loser", r)
	}
	// The loser's worker reports the kill; it is no failure.
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: orig, Result: AttemptKilled})
	f.drain()
	st, _ := f.c.DAG(id)
	if st.Failed != 0 || st.Speculation != (SpeculationCounts{Launched: 1, Won: 1}) {
		t.Errorf("DAG failed %d, speculation %+v; want 0 failed, 1 launched and won", st.Failed, st.Speculation)
	}
	f.finishAll()
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded {
		t.Fatalf("DAG %v %s", st.State, st.Diagnostics)
	}
	if s := f.c.Speculation(); s != (SpeculationCounts{Launched: 1, Won: 1}) {
		t.Errorf("core's speculation %+v", s)
	}
}

// The original finishing first kills the backup: a lost race, counted as
// such, still no failure.
func TestOriginalWinsBackupLoses(t *testing.T) {
	f, id := startWide(t, specOn(), 4, 1, "")
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	ids := f.byTask("v")[2]
	orig, backup := ids[0], ids[1]
	delete(f.running, orig)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: orig, Result: AttemptSucceeded})
	f.drain()
	if _, ok := f.running[backup]; ok {
		t.Fatalf("backup %s still runs after the original won", backup)
	}
	st, _ := f.c.DAG(id)
	if st.Failed != 0 || st.Speculation != (SpeculationCounts{Launched: 1, Lost: 1}) {
		t.Errorf("DAG failed %d, speculation %+v; want 0 failed, 1 launched and lost", st.Failed, st.Speculation)
	}
}

// Exactly once: a producer task raced by a backup registers one output,
// the winner's; its consumers fetch that attempt only, and the loser's
// worker holds nothing for the DAG, even when both report success.
func TestLoserOutputNeverRegistered(t *testing.T) {
	f := newFake(t, specOn())
	submitMapRed(f, 5)
	// Three fast maps finish at 20 s, so the fourth (task 3) is alone.
	f.tick(20 * time.Second)
	f.succeedAllBut("map", 3)
	f.drain()
	// Reducers started under slow start gather; free the workers they
	// took so a backup has room: kill nothing, just add one more worker.
	f.addWorker("w6", "g", "n6", 256)
	f.report("map", 0, map[int]float64{3: 0.1})
	f.tick(time.Second)
	ids := f.byTask("map")[3]
	if len(ids) != 2 {
		t.Fatalf("map task 3 runs %v, want a backup", ids)
	}
	orig, backup := ids[0], ids[1]
	loserWorker := f.c.workers[f.running[orig]]
	// Both report success in one batch: the backup first.
	delete(f.running, backup)
	delete(f.running, orig)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: backup, Result: AttemptSucceeded})
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: orig, Result: AttemptSucceeded})
	f.drain()
	mt := f.c.dags["dag_0001"].byName["map"].tasks[3]
	if mt.output == nil || mt.output.id != backup {
		t.Fatalf("map task 3's output %v, want the backup %s", mt.output, backup)
	}
	if n := loserWorker.outputs[mt.vertex.dag]; n != 0 && loserWorker != mt.output.worker {
		t.Errorf("the loser's worker %s holds %d outputs of the DAG", loserWorker.info.ID, n)
	}
	for _, id := range sortedKeys(f.running) {
		s := f.c.attemptSpec(f.c.attempt[id])
		if s.Vertex != "red" {
			continue
		}
		for _, in := range s.Inputs {
			if in.ProducerTask == 3 && in.ProducerAttempt != backup {
				t.Errorf("reducer %s reads map task 3 from %s, want the winner %s", id, in.ProducerAttempt, backup)
			}
		}
	}
	if st, _ := f.c.DAG("dag_0001"); st.Succeeded != 4 {
		t.Errorf("%d tasks succeeded, want 4 (map task 3 once)", st.Succeeded)
	}
}

// One attempt of a raced task failing or losing its worker leaves the
// task running on the other: it is not queued again.
func TestRaceSurvivesOneAttemptEnding(t *testing.T) {
	f, id := startWide(t, specOn(), 4, 1, "")
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	ids := f.byTask("v")[2]
	orig, backup := ids[0], ids[1]
	delete(f.running, orig)
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: orig, Result: AttemptFailed, ExitCode: 1})
	f.drain()
	if got := f.byTask("v")[2]; strings.Join(got, ",") != backup {
		t.Fatalf("task 2 runs %v after its original failed, want only the backup %s", got, backup)
	}
	st, _ := f.c.DAG(id)
	if st.State != DAGRunning || st.Failed != 1 {
		t.Fatalf("DAG %v with %d failed, want RUNNING with the one real failure", st.State, st.Failed)
	}
	f.c.WorkerLost(f.now, f.running[backup], "gone")
	f.drain()
	tk := f.c.dags[id].byName["v"].tasks[2]
	if a := tk.current; a == nil || a.id == orig || a.id == backup || tk.state == taskWaiting {
		t.Errorf("task 2 after the survivor's worker was lost: %v with %+v, want a third attempt", tk.state, a)
	}
}

// Off by default; a vertex's speculative: overrides the key either way.
func TestSpeculationSwitches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		on    bool
		extra string
		want  int
	}{
		{"key off", false, "", 4},
		{"key off, vertex on", false, ", speculative: true", 5},
		{"key on, vertex off", true, ", speculative: false", 4},
	} {
		o := specOn()
		o.Speculation.Enabled = tc.on
		f, _ := startWide(t, o, 4, 1, tc.extra)
		f.tick(20 * time.Second)
		f.report("v", 0.8, map[int]float64{2: 0.1})
		f.tick(time.Second)
		if n := len(f.running); n != tc.want {
			t.Errorf("%s: %d attempts running, want %d", tc.name, n, tc.want)
		}
	}
}

// Exactly once for a sink: its attempts ask before they commit, the first
// to ask is granted and its rival killed at once, so the rival never
// publishes; a late ask from the loser is not granted.
func TestSinkCommitGrantedOnce(t *testing.T) {
	f := newFake(t, specOn())
	s, err := dag.Parse("test.yaml", []byte(wide(4, "")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.SubmitDAG(f.now, Submission{Spec: s, Output: "/out"}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	for i := 1; i <= 5; i++ {
		f.addWorker(fmt.Sprintf("w%d", i), "g", fmt.Sprintf("n%d", i), 256)
	}
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	ids := f.byTask("v")[2]
	if len(ids) != 2 {
		t.Fatalf("task 2 runs %v, want a backup", ids)
	}
	orig, backup := ids[0], ids[1]
	for _, id := range ids {
		if sp := f.c.attemptSpec(f.c.attempt[id]); !sp.AskCommit || sp.CommitDir != "/out" {
			t.Fatalf("%s: AskCommit %v CommitDir %q, want it to ask before committing to /out", id, sp.AskCommit, sp.CommitDir)
		}
	}
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: backup, Result: AttemptCommitPending, Progress: 1})
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: orig, Result: AttemptCommitPending, Progress: 1})
	f.drain()
	if strings.Join(f.granted, ",") != backup {
		t.Fatalf("granted %v, want only the first to ask, %s", f.granted, backup)
	}
	if _, ok := f.running[orig]; ok {
		t.Fatalf("the original %s still runs after its rival was granted the commit", orig)
	}
	if r, _ := f.c.Attempt(orig); !r.Loser {
		t.Errorf("the original's record %+v is not marked the loser", r)
	}
	// Without speculation a sink commits as before, without asking.
	g := newFake(t, CoreOptions{})
	if _, err := g.c.SubmitDAG(g.now, Submission{Spec: s, Output: "/out"}); err != nil {
		t.Fatal(err)
	}
	g.addWorker("w1", "g", "n1", 256)
	for id := range g.running {
		if g.c.attemptSpec(g.c.attempt[id]).AskCommit {
			t.Errorf("%s asks before committing with speculation off", id)
		}
	}
}

// An attempt granted its commit keeps the task: no backup is started for
// it however slow it looked, while another straggler of the vertex gets
// one; a repeated ask (the worker repeats it until answered) is granted
// again.
func TestCommittingAttemptGetsNoBackup(t *testing.T) {
	f := newFake(t, specOn())
	s, err := dag.Parse("test.yaml", []byte(wide(8, "")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.SubmitDAG(f.now, Submission{Spec: s, Output: "/out"}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	for i := 1; i <= 10; i++ {
		f.addWorker(fmt.Sprintf("w%d", i), "g", fmt.Sprintf("n%d", i), 256)
	}
	f.tick(20 * time.Second)
	// Tasks 1 and 2 crawl: rates [0.0025 0.005 0.04 x6], the median 0.04;
	// both rates times 1.5 are below it; task 1 has more time left (379 s
	// against 179 s) and would go first.
	f.report("v", 0.8, map[int]float64{1: 0.05, 2: 0.1})
	one := f.byTask("v")[1][0]
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: one, Result: AttemptCommitPending, Progress: 1})
	f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: one, Result: AttemptCommitPending, Progress: 1})
	f.drain()
	f.tick(time.Second)
	got := f.byTask("v")
	if len(got[1]) != 1 || len(got[2]) != 2 {
		t.Fatalf("tasks 1 and 2 run %v and %v, want no backup for task 1 (committing) and one for task 2", got[1], got[2])
	}
	if want := one + "," + one; strings.Join(f.granted, ",") != want {
		t.Errorf("granted %v, want %s", f.granted, want)
	}
}

// With no free worker off the slow nodes, on-demand scaling asks for one
// for the backup (as MapReduce's AM asks a container for a speculative
// attempt), and the backup starts there once it comes; the ask is not
// repeated while it waits. Not while an idle worker sits on a slow node:
// one that came for a backup and landed there.
func TestBackupAsksForRoom(t *testing.T) {
	f, _ := startWide(t, specOn(), 4, 0, "")
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{2: 0.1})
	f.tick(time.Second)
	if f.wanted["g"] != 5 {
		t.Fatalf("the group wants %d workers, want 5: its 4 and one for the backup", f.wanted["g"])
	}
	f.tick(time.Second)
	if f.wanted["g"] != 5 {
		t.Fatalf("the group wants %d workers after another tick, want still 5", f.wanted["g"])
	}
	f.addWorker("new", "g", "c1", 256)
	f.tick(time.Second)
	if got := f.byTask("v")[2]; len(got) != 2 || f.running[got[1]] != "new" {
		t.Fatalf("task 2 runs %v, want a backup on the new worker", got)
	}
	if f.wanted["g"] != 5 {
		t.Errorf("the group wants %d workers with the backup placed, want 5", f.wanted["g"])
	}

	// A worker that came and landed on the straggler's node, idle there: no
	// new ask.
	g, _ := startWide(t, specOn(), 4, 0, "")
	strag := g.byTask("v")[2][0]
	g.addWorker("landed", "g", g.nodeOf(strag), 256)
	g.tick(20 * time.Second)
	g.report("v", 0.8, map[int]float64{2: 0.1})
	g.tick(time.Second)
	if g.wanted["g"] != 5 || len(g.byTask("v")[2]) != 1 {
		t.Errorf("the group wants %d workers and task 2 runs %v, want 5 (no new ask) and no backup on the slow node",
			g.wanted["g"], g.byTask("v")[2])
	}
}

// The straggler's own worker having room does not stop the ask: its room
// is no sign of a backup's worker gone wrong. Two 512 MB workers, three
// 256 MB tasks: one worker holds two, the other one and room for one more.
func TestBackupAsksBesideABusySlowWorker(t *testing.T) {
	f := newFake(t, specOn())
	f.submit(strings.Replace(wide(3, ""), "workerMemoryMB: 256", "workerMemoryMB: 512", 1))
	f.addWorker("w1", "g", "n1", 512)
	f.addWorker("w2", "g", "n2", 512)
	var strag int
	for i, ids := range f.byTask("v") {
		if w := f.c.workers[f.running[ids[0]]]; w.freeMB > 0 {
			strag = i
		}
	}
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{strag: 0.1})
	f.tick(time.Second)
	if f.wanted["g"] != 3 {
		t.Errorf("the group wants %d workers, want 3: a worker for the backup of task %d", f.wanted["g"], strag)
	}
}

// A third of the tasks straggling (one slow node of three): nine tasks,
// tasks 0-2 five times slower. Rates after 20 s: three at 0.16/20 =
// 0.008/s, six at 0.8/20 = 0.04/s. The median (the 5th of 9) is 0.04 and
// 0.008 x 1.5 = 0.012 is below it: all three straggle, each with
// 20/0.16 - 21 = 104 s left against a fresh attempt's 25 s. (LATE's 25th
// percentile, the 3rd of 9, was 0.008 itself: none was below it.) The
// minimum allowed, 10, lets all three run a backup at once, where 10% of
// nine tasks alone would allow one.
func TestAThirdStraggling(t *testing.T) {
	f, _ := startWide(t, specOn(), 9, 3, "")
	f.tick(20 * time.Second)
	f.report("v", 0.8, map[int]float64{0: 0.16, 1: 0.16, 2: 0.16})
	f.tick(time.Second)
	backed := f.backedTasks("v")
	if fmt.Sprint(backed) != "[0 1 2]" {
		t.Fatalf("tasks with backups %v, want [0 1 2]", backed)
	}
}

// The multiplier decides: with the median's estimate at 100 s (progress
// 0.2 after 20 s), a task estimated at 1.4 x that (140 s: progress 1/7)
// is no straggler under 1.5, though a new attempt (100 s) would beat its
// 140 - 21 = 119 s left; at 1.6 x (160 s: progress 0.125, 139 s left) it
// is.
func TestMultiplierDecides(t *testing.T) {
	for _, c := range []struct {
		progress float64
		backup   bool
	}{{1.0 / 7, false}, {0.125, true}} {
		f, _ := startWide(t, specOn(), 5, 1, "")
		f.tick(20 * time.Second)
		f.report("v", 0.2, map[int]float64{4: c.progress})
		f.tick(time.Second)
		if got := len(f.byTask("v")[4]) == 2; got != c.backup {
			t.Errorf("task 4 at progress %.3f after 20 s (median 0.2): backup %v, want %v", c.progress, got, c.backup)
		}
	}
}

// A consumer started under slow start is judged from when its last input
// came: the time it waited for producers is not its work. Two reduces
// start gathering when the first of four maps is done (slow start 25%),
// at 20 s, and get their last input at 40 s; a second later reduce 0 has
// reported progress and reduce 1 not yet. Counted from their start
// (21 s, past the 10 s minimum) reduce 1's rate would be 0 and its time
// left infinite: a backup. Counted from its last input (1 s) it is not
// judged yet.
func TestGatheringIsNotWork(t *testing.T) {
	o := specOn()
	o.SlowStart = 0.25
	f := newFake(t, o)
	submitMapRed(f, 7)
	finish := func(i int) {
		id := f.byTask("map")[i][0]
		delete(f.running, id)
		f.c.AttemptUpdate(f.now, AttemptUpdate{AttemptID: id, Result: AttemptSucceeded})
		f.drain()
	}
	f.tick(20 * time.Second)
	finish(0)
	f.tick(20 * time.Second)
	finish(1)
	finish(2)
	finish(3)
	if n := len(f.byTask("red")); n != 2 {
		t.Fatalf("%d reduces running, want 2", n)
	}
	f.tick(time.Second)
	f.report("red", 0.1, map[int]float64{1: 0})
	f.tick(time.Second)
	for i, ids := range f.byTask("red") {
		if len(ids) != 1 {
			t.Errorf("reduce %d runs %v a second after its last input: want no backup", i, ids)
		}
	}
}

// submitMapRed submits four maps feeding two reduces (256 MB each) and
// gives the group one 256 MB worker on each of nodes n1..nodes.
func submitMapRed(f *fakeWorld, nodes int) {
	f.submit(`
name: mr
containerGroup: {name: g, workerMemoryMB: 256}
vertices:
  - {name: map, command: "true", parallelism: 4, memoryMB: 256}
  - {name: red, command: "true", parallelism: 2, memoryMB: 256}
edges: [{from: map, to: red, type: scatter-gather}]
`)
	for i := 1; i <= nodes; i++ {
		f.addWorker(fmt.Sprintf("w%d", i), "g", fmt.Sprintf("n%d", i), 256)
	}
}
