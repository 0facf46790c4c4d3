package ui

import (
	"context"
	"encoding/json"
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/conf"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

const secret = "s3cr3t-application-secret"

// coreSource serves a core the test drives by hand.
type coreSource struct {
	mu sync.Mutex
	c  *core.Core
}

func (s *coreSource) Read(_ context.Context, f func(View)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.c)
	return nil
}

// drained discards the core's actions but RunAttempt's ids.
type drained struct{ started []core.RunAttempt }

func (d *drained) WantWorkers(time.Time, core.WantWorkers) {}
func (d *drained) RunAttempt(_ time.Time, a core.RunAttempt) {
	d.started = append(d.started, a)
}
func (d *drained) KillAttempt(time.Time, core.KillAttempt)     {}
func (d *drained) AttemptInputs(time.Time, core.AttemptInputs) {}
func (d *drained) StartAMWorker(time.Time, core.StartAMWorker) {}
func (d *drained) GrantCommit(time.Time, core.GrantCommit)     {}
func (d *drained) StopWorker(time.Time, core.StopWorker)       {}
func (d *drained) MoveWorker(time.Time, core.MoveWorker)       {}
func (d *drained) DAGEnded(time.Time, core.DAGEnded)           {}
func (d *drained) Log(time.Time, core.Log)                     {}

// fixture: a two-vertex DAG on one worker; one attempt failed with the
// secret in its stderr tail (a task may print anything), one succeeded,
// one runs. The worker's log directory holds files with the secret too.
func fixture(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	c, err := core.NewCore(uiCoreOptions())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	spec, err := dag.Parse("x.yaml", []byte(`
name: shown
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: map, command: "true", parallelism: 2, memoryMB: 256}
  - {name: reduce, command: "true", parallelism: 1, memoryMB: 256}
edges: [{from: map, to: reduce, type: scatter-gather}]
`))
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.SubmitDAG(now, core.Submission{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	x := &drained{}
	c.Drain(now, x)
	if err := c.WorkerRegistered(now, core.WorkerInfo{ID: "w1", Group: "g", Node: "n1", NodeMB: 4096, MemoryMB: 1024, ContainerID: "container_1"}); err != nil {
		t.Fatal(err)
	}
	c.Drain(now, x)
	if len(x.started) != 2 {
		t.Fatalf("%d attempts started, want 2", len(x.started))
	}
	now = now.Add(2 * time.Second)
	c.AttemptUpdate(now, core.AttemptUpdate{AttemptID: x.started[0].Attempt.ID, Result: core.AttemptSucceeded})
	c.AttemptUpdate(now, core.AttemptUpdate{AttemptID: x.started[1].Attempt.ID, Result: core.AttemptFailed, ExitCode: 1,
		Diagnostics: "exited: exit status 1; stderr tail:\ntoken=" + secret})
	c.Tick(now)
	c.Drain(now, x)
	logs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(logs, "container_1"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The worker's own log, with the secret in it as a task could print it.
	if err := os.WriteFile(filepath.Join(logs, "container_1", "worker.log"), []byte("worker log "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, a := range x.started {
		if err := os.WriteFile(filepath.Join(logs, "container_1", a.Attempt.ID+".stdout"), []byte("hello from "+a.Attempt.ID+" "+secret+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := New(&coreSource{c: c}, Options{App: AppInfo{ID: "app_1_0001", User: "alice", Queue: "default", World: "test", Started: now.Add(-time.Minute)},
		Secret: secret, LocalLogDir: logs, PackingHighPercent: conf.Defaults().Int("ebb.packing.high.threshold.percent")})
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return srv, id
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var absLink = regexp.MustCompile(`(?:href|src)="/`)

// Every page, API response, drawing, asset and log answers 200, links
// only relatively (the RM's proxy serves the UI under /proxy/APP/), and
// never shows the application secret, though a task printed it.
func TestEveryResponseIsRelativeAndHidesTheSecret(t *testing.T) {
	srv, id := fixture(t)
	paths := []string{"/", "/dag/" + id, "/dag/" + id + "/vertex/map", "/group/g", "/workers", "/metrics", "/svg/group/g", "/svg/dag/" + id,
		"/static/app.js", "/static/style.css", "/api/v1/overview", "/api/v1/dags", "/api/v1/dags/" + id, "/api/v1/groups",
		"/api/v1/groups/g", "/api/v1/workers", "/api/v1/nodes", "/api/v1/attempts/" + id + "_map_000000_0"}
	// The log links the DAG page offers are fetched too.
	_, dagPage := get(t, srv.URL+"/dag/"+id)
	logLinks := regexp.MustCompile(`href="\.\./(logs/[^"]+)"`).FindAllStringSubmatch(dagPage, -1)
	if len(logLinks) != 9 { // 3 attempts (2 maps, 1 retry) x stdout, stderr, worker
		t.Fatalf("%d log links on the DAG page, want 9", len(logLinks))
	}
	for _, l := range logLinks {
		paths = append(paths, "/"+l[1])
	}
	for _, p := range paths {
		code, body := get(t, srv.URL+p)
		wantCode := http.StatusOK
		if strings.HasSuffix(p, "stderr") {
			wantCode = http.StatusNotFound // the fixture wrote only stdout
		}
		if code != wantCode {
			t.Errorf("GET %s: %d, want %d\n%s", p, code, wantCode, body)
		}
		if strings.Contains(body, secret) {
			t.Errorf("GET %s shows the application secret", p)
		}
		if absLink.MatchString(body) {
			t.Errorf("GET %s has an absolute link: %s", p, absLink.FindString(body))
		}
	}
	if _, out := get(t, srv.URL+"/"+logLinks[0][1]); !strings.HasPrefix(out, "hello from") || !strings.Contains(out, "[redacted]") {
		t.Errorf("stdout log = %q, want the task's line with the secret redacted", out)
	}
}

// The API reports progress, the failed attempt with its stderr tail, and
// the node's two memory figures.
func TestAPIOverviewAndDAG(t *testing.T) {
	srv, id := fixture(t)
	var o Overview
	_, body := get(t, srv.URL+"/api/v1/overview")
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	// 1 of 3 tasks done; the worker offers 1024 MB, runs the retried map
	// attempt (256 MB); the node holds the 1024 MB container.
	if len(o.DAGs) != 1 || o.DAGs[0].Succeeded != 1 || o.DAGs[0].Tasks != 3 || o.DAGs[0].FailedAttempts != 1 {
		t.Errorf("dags %+v", o.DAGs)
	}
	if len(o.Nodes) != 1 || o.Nodes[0].ContainerMB != 1024 || o.Nodes[0].TaskMB != 256 || o.Nodes[0].Packing != "medium" {
		t.Errorf("nodes %+v", o.Nodes)
	}
	if o.App.User != "alice" || o.UptimeSecs != 60 {
		t.Errorf("app %+v, uptime %v", o.App, o.UptimeSecs)
	}
	var d DAGDetail
	_, body = get(t, srv.URL+"/api/v1/dags/"+id)
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	states := ""
	for _, a := range d.Attempts {
		states += a.State + " "
	}
	if states != "SUCCEEDED FAILED RUNNING " {
		t.Errorf("attempt states %q", states)
	}
	if f := d.Attempts[1]; f.ExitCode != 1 || !strings.Contains(f.Diagnostics, "token=[redacted]") || f.Logs["stdout"] != "logs/container_1/"+f.ID+".stdout" {
		t.Errorf("failed attempt %+v", f)
	}
	if len(d.Edges) != 1 || d.Vertices[1].Depth != 1 {
		t.Errorf("graph: edges %+v vertices %+v", d.Edges, d.Vertices)
	}
	if code, _ := get(t, srv.URL+"/api/v1/dags/nope"); code != http.StatusNotFound {
		t.Errorf("unknown DAG: %d", code)
	}
}

// /metrics counts tasks per DAG and vertex and bins the ended attempts'
// durations: both map attempts ended after 2 s (one succeeded, one
// failed), so le=1 holds 0 and le=2 holds 2.
func TestMetricsCountTasksAndDurations(t *testing.T) {
	srv, id := fixture(t)
	_, m := get(t, srv.URL+"/metrics")
	for _, want := range []string{
		`ebb_dag_tasks{dag="` + id + `",name="shown",state="succeeded"} 1`,
		`ebb_dag_tasks{dag="` + id + `",name="shown",state="total"} 3`,
		`ebb_vertex_tasks{dag="` + id + `",vertex="map",state="running"} 1`,
		`ebb_vertex_tasks{dag="` + id + `",vertex="reduce",state="total"} 1`,
		`ebb_dag_failed_attempts_total{dag="` + id + `"} 1`,
		`ebb_attempt_duration_seconds_bucket{dag="` + id + `",vertex="map",le="1"} 0`,
		`ebb_attempt_duration_seconds_bucket{dag="` + id + `",vertex="map",le="2"} 2`,
		`ebb_attempt_duration_seconds_count{dag="` + id + `",vertex="map"} 2`,
		`ebb_worker_moves_total 0`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	if got := reasonClass("usage 78.1% ≥ 70%, 4 attempts queued, requesting 2 workers"); got != "usage N% ≥ N%, N attempts queued, requesting N workers" {
		t.Errorf("reason class %q", got)
	}
}

// A DAG's page lists its latest attempts (?limit=), a vertex's page all of
// that vertex's; an unknown vertex is 404.
func TestVertexPageAndAttemptLimit(t *testing.T) {
	srv, id := fixture(t)
	var d DAGDetail
	_, body := get(t, srv.URL+"/api/v1/dags/"+id+"?limit=1")
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Attempts) != 1 || d.AttemptsTotal != 3 || d.Attempts[0].Number != 1 {
		t.Errorf("limit=1: %d attempts of %d, first %+v: want the latest (the retry) of 3", len(d.Attempts), d.AttemptsTotal, d.Attempts)
	}
	_, body = get(t, srv.URL+"/api/v1/dags/"+id+"?vertex=reduce")
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Attempts) != 0 || d.AttemptsTotal != 0 {
		t.Errorf("vertex=reduce: %d attempts, want none (its inputs are not ready)", len(d.Attempts))
	}
	code, page := get(t, srv.URL+"/dag/"+id+"/vertex/map")
	if code != http.StatusOK || strings.Count(page, `class="attempt"`) != 3 || !strings.Contains(page, `href="../../../static/style.css"`) {
		t.Errorf("the map vertex page: %d, %d attempts", code, strings.Count(page, `class="attempt"`))
	}
	if code, _ := get(t, srv.URL+"/dag/"+id+"/vertex/nope"); code != http.StatusNotFound {
		t.Errorf("an unknown vertex: %d", code)
	}
}

// uiCoreOptions are the table's defaults for app_1_0001, without slow
// start: the fixture's reduce waits for every map.
func uiCoreOptions() core.CoreOptions {
	o := amconf.Defaults()
	o.IDPrefix, o.SlowStart = "app_1_0001", 0
	return o
}
