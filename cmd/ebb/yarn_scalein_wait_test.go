package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
)

var dagIDRe = regexp.MustCompile(`dag_\d+`)

// The issue-12 scale-in acceptance on real YARN, with
// mr3.auto.scale.in.wait.dag.finished=true (its default): the drained
// node's workers run new attempts of the DAG active at the scale-in, none
// of a DAG submitted after it, and stop when the active DAG ends. All of
// it is read from the AM's API through the RM's proxy, as an operator
// would, and the stop also from the RM's and the NodeManager's container
// reports.
//
// DAG a: burst (10 attempts of 1024 MB, 4 s, as in
// TestYarnAutoscaleBurstThenTail) grows the group of 2048 MB workers to
// up to 5 on several NodeManagers; as it winds down and tail (one 256 MB
// attempt) runs, usage falls and a node is drained. tail lasts 20 s: the
// scale-in comes a few seconds into it at the latest (a 2 s window, 1 s
// samples, 1 s after the last scale-out), and b must be submitted and
// seen queued before a's last vertex starts. after (8 attempts of 1024
// MB) starts when tail ends, so every one of its attempts starts after
// the scale-in; with b holding the other workers, the drained node's
// workers are offered them. DAG b (16 attempts of 1024 MB, 4 s),
// submitted once the scale-in is seen, is wider than the workers left
// (at most 4, 8 attempts at once), so it queues while the drained node's
// workers sit idle beside it: were they to take b's attempts, they would.
func TestYarnScaleInWaitsForActiveDAG(t *testing.T) {
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sets := append([]string{
		"--set", "mr3.am.session.mode=true",
		"--set", "ebb.session.idle.timeout.secs=600",
		"--set", "mr3.enable.auto.scaling=true",
		// As in TestYarnAutoscaleBurstThenTail: sample every second over a
		// 2 s window, so that the burst scales out and the tail scales in
		// within seconds, one worker first and two more per scale-out.
		"--set", "mr3.check.memory.usage.event.interval.secs=1",
		"--set", "mr3.memory.usage.check.window.length.secs=2",
		"--set", "mr3.auto.scale.out.threshold.percent=70",
		"--set", "mr3.auto.scale.in.threshold.percent=30",
		"--set", "mr3.auto.scale.out.num.initial.containers=1",
		"--set", "mr3.auto.scale.out.num.increment.containers=2",
		"--set", "mr3.auto.scale.out.grace.period.secs=3",
		"--set", "mr3.auto.scale.in.delay.after.scale.out.secs=1",
		// One node per scale-in, at least one kept.
		"--set", "mr3.auto.scale.in.min.hosts=1",
		"--set", "mr3.auto.scale.in.num.decrement.hosts=1",
		// The group stays in SCALE_IN for the whole test (its grace period
		// outlasts it): no scale-out while b queues, so the only room b
		// could find beyond the workers left is the drained node's, and no
		// second scale-in drains another node.
		"--set", "mr3.auto.scale.in.grace.period.secs=600",
		"--set", "mr3.auto.scale.in.wait.dag.finished=true",
		// Idle workers stay: only the drain may stop them.
		"--set", "mr3.container.idle.timeout.ms=600000",
		"--set", "ebb.packing.scheme=packed",
		"--set", "ebb.packing.min.nodes=1",
	}, amSets...)
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "scalein-wait"}, sets...)...)
	if err != nil {
		t.Fatalf("starting the session: %v\n%s", err, out)
	}
	id := y.appID(out)
	// Cleanup: the test has its verdict, and an ended application cannot be killed.
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	api := testcluster.RMWebURL(t) + "/proxy/" + id.String() + "/api/v1/"

	submit := func(name, spec string) string {
		t.Helper()
		p := y.writeDAG(spec)
		out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--output", filepath.Join(t.TempDir(), "out"), p)
		if err != nil {
			t.Fatalf("dag submit %s: %v\n%s", name, err, out)
		}
		d := dagIDRe.FindString(out)
		if d == "" {
			t.Fatalf("dag submit %s printed no DAG id:\n%s", name, out)
		}
		return d
	}
	burn := func(secs int) string {
		return fmt.Sprintf(`[ebb, task, burn, --memory-mb, "16", --seconds, "%d"]`, secs)
	}
	a := submit("a", fmt.Sprintf(`
name: a
containerGroup: {name: sw, workerMemoryMB: 2048}
vertices:
  - {name: burst, command: %s, parallelism: 10, memoryMB: 1024}
  - {name: tail, command: %s, parallelism: 1, memoryMB: 256}
  - {name: after, command: %s, parallelism: 8, memoryMB: 1024}
edges:
  - {from: burst, to: tail, type: scatter-gather}
  - {from: tail, to: after, type: broadcast}
`, burn(4), burn(20), burn(4)))

	// The scale-in, seen through the API while a runs.
	var in ui.Transition
	var drained string
	y.waitFor("a scale-in of group sw", 150*time.Second, func() bool {
		var o ui.Overview
		if !y.tryJSON(api+"overview", &o) {
			return false
		}
		if d := dagOf(o.DAGs, a); d != nil && d.State != "RUNNING" {
			t.Fatalf("dag a ended %s before any scale-in (transitions %+v)", d.State, o.Transitions)
		}
		for _, tr := range o.Transitions {
			if tr.Group == "sw" && tr.To == "SCALE_IN" {
				in = tr
			}
		}
		for _, n := range o.Nodes {
			if n.Draining {
				drained = n.ID
			}
		}
		return in.To != "" && drained != ""
	})
	var workers []ui.Worker
	y.getJSON(api+"workers", &workers)
	var onDrained []ui.Worker // the drained node's workers
	nodes := map[string]bool{}
	for _, w := range workers {
		nodes[w.Node] = true
		if w.Node == drained {
			onDrained = append(onDrained, w)
			if !w.Draining {
				t.Errorf("worker %s on the drained node %s is not draining", w.ID, drained)
			}
		}
	}
	t.Logf("%s: %s → SCALE_IN (%s): node %s drained; workers %d on %d nodes, %d on the drained node",
		in.At.Format("15:04:05.000"), in.From, in.Reason, drained, len(workers), len(nodes), len(onDrained))
	if len(nodes) < 2 || len(onDrained) == 0 {
		t.Fatalf("want workers on at least 2 nodes, some on the drained one: %+v", workers)
	}

	// The RM lists their containers live now, and their NodeManager
	// runs them: the two reports where their end shows below.
	live := y.liveContainers(id)
	nmHTTP := ""
	for i, nid := range testcluster.NodeIDs(t) {
		if nid == drained {
			nmHTTP = testcluster.EnvValue(t, "NM"+strconv.Itoa(i)+"_HTTP")
		}
	}
	if nmHTTP == "" {
		t.Fatalf("drained node %s is none of the minicluster's NodeManagers %v", drained, testcluster.NodeIDs(t))
	}
	for _, w := range onDrained {
		if !slices.Contains(live, w.Container) {
			t.Fatalf("the RM's live containers %v lack drained worker %s's container %s", live, w.ID, w.Container)
		}
		if state, code := y.nmContainer(nmHTTP, w.Container); state != "RUNNING" {
			t.Fatalf("NodeManager %s reports drained worker %s's container %s: %d %q, want RUNNING", nmHTTP, w.ID, w.Container, code, state)
		}
	}

	b := submit("b", fmt.Sprintf(`
name: b
containerGroup: {name: sw, workerMemoryMB: 2048}
vertices:
  - {name: wide, command: %s, parallelism: 16, memoryMB: 1024}
`, burn(4)))

	// Follow both DAGs to their end and the drained workers to theirs.
	// The drained workers must stay while a runs; b must at some moment
	// have had attempts queued while a drained worker had room for one
	// (else the test showed nothing about b); once a has ended they
	// must go, and their containers with them.
	var aEnd time.Time
	bQueuedBesideRoom := ""
	lastSeen := "" // what the last poll saw, for a timeout's report
	defer func() {
		if t.Failed() {
			t.Logf("last seen: %s", lastSeen)
		}
	}()
	stillThere := func(ws []ui.Worker) []string {
		var ids []string
		for _, w := range ws {
			if w.Node == drained {
				ids = append(ids, w.ID)
			}
		}
		return ids
	}
	y.waitFor("a, b and the drained node's workers to end", 180*time.Second, func() bool {
		// Workers first: a worker gone or stopping in that read, with a
		// still running in the later one, went while a ran.
		var o ui.Overview
		var ws []ui.Worker
		if !y.tryJSON(api+"workers", &ws) || !y.tryJSON(api+"overview", &o) {
			return false
		}
		da, db := dagOf(o.DAGs, a), dagOf(o.DAGs, b)
		if da == nil || db == nil {
			t.Fatalf("the API lists no dag %s or %s: %+v", a, b, o.DAGs)
		}
		for _, d := range []*ui.DAG{da, db} {
			if d.State == "FAILED" || d.State == "KILLED" {
				t.Fatalf("dag %s (%s) ended %s: %s", d.ID, d.Name, d.State, d.Diagnostics)
			}
		}
		// a still runs while it has tasks to run: once they all succeeded
		// it shows RUNNING only while its output is committed, and its
		// workers' outputs are needed no more.
		if da.State == "RUNNING" && da.Succeeded < da.Tasks {
			left := stillThere(ws)
			for _, w := range ws {
				if w.Node == drained && w.Stopping {
					t.Fatalf("drained worker %s is stopping while dag a still runs", w.ID)
				}
			}
			if len(left) < len(onDrained) {
				t.Fatalf("drained workers left while dag a still runs: %d of %d remain (%v)", len(left), len(onDrained), left)
			}
		} else if aEnd.IsZero() && da.Finished != nil {
			aEnd = *da.Finished
		}
		// From one read (the overview is taken on the AM's loop at once):
		// the drained node's workers offer ContainerMB and run TaskMB.
		if queued := db.Tasks - db.Succeeded - db.Running; queued > 0 && bQueuedBesideRoom == "" {
			for _, n := range o.Nodes {
				if n.ID == drained && n.ContainerMB-n.TaskMB >= 1024 {
					bQueuedBesideRoom = fmt.Sprintf("at AM time %s %d attempts of b were queued while the drained node's workers had %d MB free",
						o.Now.Format("15:04:05.000"), queued, n.ContainerMB-n.TaskMB)
				}
			}
		}
		lastSeen = fmt.Sprintf("a %s, b %s, workers on the drained node %v", da.State, db.State, stillThere(ws))
		return da.State == "SUCCEEDED" && db.State == "SUCCEEDED" && len(stillThere(ws)) == 0
	})
	t.Logf("dag a ended %s; %s", aEnd.Format("15:04:05.000"), bQueuedBesideRoom)
	if bQueuedBesideRoom == "" {
		t.Errorf("b never had attempts queued while a drained worker had room: the test shows nothing about b")
	}

	// Who ran what, from the attempts.
	var da, db ui.DAGDetail
	y.getJSON(api+"dags/"+a, &da)
	y.getJSON(api+"dags/"+b, &db)
	drainedIDs := map[string]bool{}
	for _, w := range onDrained {
		drainedIDs[w.ID] = true
	}
	var aAfter []string
	for _, at := range da.Attempts {
		if drainedIDs[at.Worker] && at.Start.After(in.At) {
			aAfter = append(aAfter, fmt.Sprintf("%s@%s", at.ID, at.Start.Format("15:04:05.000")))
		}
	}
	t.Logf("attempts of a that the drained node's workers started after the scale-in: %v", aAfter)
	if len(aAfter) == 0 {
		t.Errorf("the drained node's workers %v started no attempt of a after the scale-in at %s", slices.Sorted(maps.Keys(drainedIDs)), in.At.Format("15:04:05.000"))
	}
	bWorkers := map[string]int{}
	for _, at := range db.Attempts {
		bWorkers[at.Worker]++
		if drainedIDs[at.Worker] || at.Node == drained {
			t.Errorf("attempt %s of b ran on the drained node's worker %s (node %s)", at.ID, at.Worker, at.Node)
		}
	}
	t.Logf("attempts of b by worker: %v", bWorkers)
	if !db.Submitted.After(in.At) || len(db.Attempts) != 16 {
		t.Errorf("b was submitted at %s (the scale-in at %s) and made %d attempts, want after it and 16",
			db.Submitted.Format("15:04:05.000"), in.At.Format("15:04:05.000"), len(db.Attempts))
	}

	// The drained containers are gone from the RM's list of the (still
	// running) session's live containers, and completed as the
	// NodeManager that ran them reports.
	y.waitFor("the RM to list none of the drained containers", 60*time.Second, func() bool {
		live := y.liveContainers(id)
		for _, w := range onDrained {
			if live == nil || slices.Contains(live, w.Container) {
				return false
			}
		}
		return true
	})
	for _, w := range onDrained {
		y.waitFor("container "+w.Container+" to complete", 60*time.Second, func() bool {
			// The NodeManager forgets a completed container soon after:
			// gone (404) counts as completed too.
			state, code := y.nmContainer(nmHTTP, w.Container)
			return code == http.StatusNotFound || state == "COMPLETE" || state == "DONE"
		})
	}
}

// nmContainer is a container's state as its NodeManager reports it, and
// the HTTP status of the answer.
func (y *yarnTest) nmContainer(nmHTTP, container string) (string, int) {
	var c struct {
		Container struct {
			State string `json:"state"`
		} `json:"container"`
	}
	code := y.getJSONStatus("http://"+nmHTTP+"/ws/v1/node/containers/"+container, &c)
	return c.Container.State, code
}

// dagOf is the DAG with the given id in the overview, or nil.
func dagOf(ds []ui.DAG, id string) *ui.DAG {
	for i := range ds {
		if ds[i].ID == id {
			return &ds[i]
		}
	}
	return nil
}

// tryJSON is getJSON for polling: false instead of failing the test.
func (y *yarnTest) tryJSON(url string, into any) bool {
	return y.getJSONStatus(url, into) == http.StatusOK
}

// getJSONStatus GETs url and decodes a 200 answer into into; it returns
// the status code, 0 when there was no answer or the body was no JSON.
func (y *yarnTest) getJSONStatus(url string, into any) int {
	c := &http.Client{Timeout: 10 * time.Second}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		return 0
	}
	return resp.StatusCode
}

// liveContainers lists the containers of the application's current
// attempt that the RM holds as live (its container reports); nil when the
// RM did not answer. The RM writes a single container as an object, more
// as an array.
func (y *yarnTest) liveContainers(id yarn.AppID) []string {
	rm := testcluster.RMWebURL(y.t) + "/ws/v1/cluster/apps/" + id.String() + "/appattempts"
	var as struct {
		AppAttempts struct {
			AppAttempt []struct {
				AppAttemptID string `json:"appAttemptId"`
			} `json:"appAttempt"`
		} `json:"appAttempts"`
	}
	if !y.tryJSON(rm, &as) || len(as.AppAttempts.AppAttempt) == 0 {
		return nil
	}
	last := as.AppAttempts.AppAttempt[len(as.AppAttempts.AppAttempt)-1].AppAttemptID
	var cs struct {
		Container json.RawMessage `json:"container"`
	}
	if !y.tryJSON(rm+"/"+last+"/containers", &cs) {
		return nil
	}
	if len(cs.Container) == 0 {
		return []string{}
	}
	type report struct {
		ContainerID string `json:"containerId"`
	}
	var many []report
	if err := json.Unmarshal(cs.Container, &many); err != nil {
		var one report
		if err := json.Unmarshal(cs.Container, &one); err != nil {
			return nil
		}
		many = []report{one}
	}
	ids := []string{}
	for _, r := range many {
		ids = append(ids, r.ContainerID)
	}
	return ids
}
