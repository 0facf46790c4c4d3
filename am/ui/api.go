package ui

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// The JSON API (docs/reference/api.md is generated from apiRoutes and
// these structs' fields and comments): the pages poll it and
// `ebb dag status --json` prints it. Field names are the API's contract;
// the structs below are its only definition.

// Overview is GET api/v1/overview.
type Overview struct {
	App         AppInfo      `json:"app"`         // the application: id, name, user, queue, attempt, world
	Now         time.Time    `json:"now"`         // when the AM answered
	UptimeSecs  float64      `json:"uptimeSecs"`  // seconds since the AM started
	DAGs        []DAG        `json:"dags"`        // every DAG the AM lists, newest last (finished ones kept per ebb.am.dag.retained.*)
	Groups      []Group      `json:"groups"`      // every ContainerGroup
	Nodes       []Node       `json:"nodes"`       // the nodes holding this AM's workers
	Transitions []Transition `json:"transitions"` // recent autoscaler state changes, all groups
	Moves       []Move       `json:"moves"`       // recent workers recycled between groups
}

// DAG is one DAG's progress.
type DAG struct {
	ID             string     `json:"id"`                    // the DAG id (dag_0001, …)
	Name           string     `json:"name"`                  // the spec's name
	State          string     `json:"state"`                 // SUBMITTED, RUNNING, SUCCEEDED, FAILED or KILLED
	Group          string     `json:"group"`                 // the ContainerGroup its tasks run in
	Submitted      time.Time  `json:"submitted"`             // when the AM accepted it
	Finished       *time.Time `json:"finished,omitempty"`    // when it ended
	Goal           *time.Time `json:"goal,omitempty"`        // the completion-time goal's deadline (the spec's goal)
	GoalStatus     string     `json:"goalStatus,omitempty"`  // on track, at risk, met, missed
	Tasks          int        `json:"tasks"`                 // tasks in all vertices
	Succeeded      int        `json:"succeeded"`             // tasks that succeeded
	Running        int        `json:"running"`               // attempts running now
	FailedAttempts int        `json:"failedAttempts"`        // attempts that failed (killed losers and preempted attempts are not failures)
	Progress       float64    `json:"progress"`              // 0..1, succeeded tasks / tasks
	SReq           float64    `json:"sReq"`                  // resource-aware scheduling: the slots the DAG needs to meet its goal (0 unless ebb.scheduler.scheme=ras)
	Utility        float64    `json:"utility"`               // resource-aware scheduling: the DAG's utility in the current plan (0 unless ras)
	Slots          int        `json:"slots"`                 // resource-aware scheduling: the slots the plan gives it (0 unless ras)
	Diagnostics    string     `json:"diagnostics,omitempty"` // why it failed or was killed, or what happened on the way (memory retries)
	Output         string     `json:"output,omitempty"`      // where its sinks committed (or will commit)
	// Compacted: the AM keeps only this summary of a finished DAG
	// (ebb.am.dag.retained.count); its page comes from the history.
	Compacted bool `json:"compacted,omitempty"`
	// Backups: speculative execution's backup attempts (nil: none).
	Backups *Backups `json:"backups,omitempty"`
	// SlowNodes: the nodes where the DAG's attempts straggled; its
	// backups and, while others have room, its later attempts go elsewhere.
	SlowNodes []string `json:"slowNodes,omitempty"`
	// Counters: what its succeeded tasks counted (a Streaming program's
	// reporter:counter: lines), summed, sorted by group and name.
	Counters []Counter `json:"counters,omitempty"`
}

// Counter is one of a DAG's counters.
type Counter struct {
	Group    string           `json:"group"`              // the counter's group
	Name     string           `json:"name"`               // its name in the group
	Value    int64            `json:"value"`              // the sum over the DAG's succeeded tasks
	Vertices map[string]int64 `json:"vertices,omitempty"` // the sum over each vertex's succeeded tasks, by vertex name
}

// Backups are a DAG's backup attempts and how their races ended.
type Backups struct {
	Launched int `json:"launched"` // backups started
	Won      int `json:"won"`      // the backup finished first
	Lost     int `json:"lost"`     // the original finished first
}

// DAGDetail is GET api/v1/dags/{id}.
type DAGDetail struct {
	DAG
	Vertices []Vertex  `json:"vertices"` // its vertices in the spec's order
	Edges    []Edge    `json:"edges"`    // its edges
	Attempts []Attempt `json:"attempts"` // its attempts (filtered by ?vertex=, ?limit=)
	// AttemptsTotal counts the attempts that matched before ?limit= kept
	// only the latest (a big DAG's page polls without copying thousands).
	AttemptsTotal int `json:"attemptsTotal"`
}

// attemptFilter is the query of api/v1/dags/{id}: ?vertex=NAME keeps one
// vertex's attempts, ?limit=N the latest N.
type attemptFilter struct {
	vertex string
	limit  int
}

func filterOf(r *http.Request) attemptFilter {
	f := attemptFilter{vertex: r.URL.Query().Get("vertex")}
	if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n > 0 {
		f.limit = n
	}
	return f
}

// Vertex is one vertex's task counts.
type Vertex struct {
	Name      string `json:"name"`      // the vertex name
	Tasks     int    `json:"tasks"`     // its parallelism
	Succeeded int    `json:"succeeded"` // tasks that succeeded
	Running   int    `json:"running"`   // attempts running now
	Queued    int    `json:"queued"`    // tasks ready and waiting for a worker
	Waiting   int    `json:"waiting"`   // tasks whose inputs are not ready yet
	MemoryMB  int64  `json:"memoryMB"`  // memory each task asks for
	Depth     int    `json:"depth"`     // longest path from a source vertex (the graph's layer)
}

// Edge joins two vertices.
type Edge struct {
	From string `json:"from"` // the producer vertex
	To   string `json:"to"`   // the consumer vertex
	Type string `json:"type"` // scatter-gather, one-to-one or broadcast
}

// Attempt is one execution of a task.
type Attempt struct {
	ID           string            `json:"id"`                    // the attempt id: DAG, vertex, task index and attempt number
	Vertex       string            `json:"vertex"`                // its vertex
	Task         int               `json:"task"`                  // its task index in the vertex, from 0
	Number       int               `json:"number"`                // its attempt number, from 0 (AM attempt k numbers from (k-1)×1000)
	MemoryMB     int64             `json:"memoryMB"`              // asked for: more than the vertex's after a kill for memory
	State        string            `json:"state"`                 // RUNNING, SUCCEEDED, FAILED or KILLED
	Worker       string            `json:"worker"`                // the worker that runs or ran it
	Container    string            `json:"container"`             // that worker's container
	Node         string            `json:"node"`                  // that worker's node
	Start        time.Time         `json:"start"`                 // when the worker took it
	End          *time.Time        `json:"end,omitempty"`         // when it ended
	DurationSecs float64           `json:"durationSecs"`          // run time so far, or in all once ended
	ExitCode     int               `json:"exitCode"`              // the task program's exit code once ended
	Diagnostics  string            `json:"diagnostics,omitempty"` // why it failed or was killed
	Status       string            `json:"status,omitempty"`      // the program's last status (a Streaming reporter:status: line)
	Logs         map[string]string `json:"logs,omitempty"`        // stdout, stderr, worker: URLs relative to the UI root or absolute
	// Speculative: a backup attempt for a straggler; Loser: killed because
	// the other attempt of its task finished first (not a failure).
	Speculative bool `json:"speculative,omitempty"`
	Loser       bool `json:"loser,omitempty"` // killed: the other attempt of its task finished first
}

// Group is one ContainerGroup and its autoscaler.
type Group struct {
	Name            string  `json:"name"`                     // the group name (the DAG spec's containerGroup.name)
	Kind            string  `json:"kind"`                     // its ContainerKind: groups of one kind may recycle workers
	State           string  `json:"state"`                    // STABLE, SCALE_OUT, SCALE_IN
	Autoscaled      bool    `json:"autoscaled"`               // mr3.enable.auto.scaling is on for it
	UsagePercent    float64 `json:"usagePercent"`             // memory of running attempts over memory the workers offer, as the autoscaler sees it (the window's average or maximum)
	OutThreshold    int     `json:"scaleOutThresholdPercent"` // mr3.auto.scale.out.threshold.percent in force
	InThreshold     int     `json:"scaleInThresholdPercent"`  // mr3.auto.scale.in.threshold.percent in force
	WorkersWanted   int     `json:"workersWanted"`            // workers the group asks its world for
	Workers         int     `json:"workers"`                  // registered workers taking attempts
	WorkersPending  int     `json:"workersPending"`           // workers asked for and not registered yet
	WorkersDraining int     `json:"workersDraining"`          // workers being emptied or stopped
	Nodes           int     `json:"nodes"`                    // nodes holding its workers
	NodesDraining   int     `json:"nodesDraining"`            // nodes a scale-in is emptying
	QueuedAttempts  int     `json:"queuedAttempts"`           // attempts waiting for a worker
	RunningAttempts int     `json:"runningAttempts"`          // attempts running on its workers
	TaskMB          int64   `json:"taskMB"`                   // memory of its running attempts
	OfferedMB       int64   `json:"offeredMB"`                // memory its workers offer to attempts
	WorkerMemoryMB  int64   `json:"workerMemoryMB"`           // memory each worker offers (the spec's workerMemoryMB, or ebb's choice)
	// SizedByEbb: the DAG left workerMemoryMB out and ebb chose it.
	SizedByEbb bool `json:"workerMemorySizedByEbb"`
	// Preemption: containers the RM warned of, the AM gave back before
	// the kill, and the cluster killed by preemption; and the containers
	// the cluster evicted.
	PreemptWarned    int `json:"preemptionWarned"`
	PreemptGivenBack int `json:"preemptionGivenBack"` // warned containers the AM gave back before the kill
	PreemptLost      int `json:"preemptionLost"`      // containers the cluster killed by preemption (YARN exit -102, Kubernetes PreemptionByScheduler)
	PreemptEvicted   int `json:"evicted"`             // containers the cluster evicted (Kubernetes: Eviction API, node pressure, taint manager)
	// SlowStartKilled: gathering consumers the AM killed to break a
	// slow-start stall (core/stall.go).
	SlowStartKilled int `json:"slowStartKilled"`
	// The latency target and what it is held against
	// (docs/autoscaling-target.md).
	TargetP95    float64 `json:"targetP95Slowdown"`   // ebb.auto.scale.target.p95.slowdown in force (or as `ebb autoscale --target` set it); 0 when the group is not sized from the work in sight
	MeasuredP95  float64 `json:"measuredP95Slowdown"` // p95, over the latest measuredDAGs DAGs that succeeded, of each one's completion time over its critical path (0: none measured)
	MeasuredDAGs int     `json:"measuredDAGs"`        // how many DAGs measuredP95Slowdown is over (the latest 50 at most; the cold start's are not counted)
	// PendingReason: why its workers wait, in the cluster's words (on
	// Kubernetes, the scheduler's message for a pod it cannot place);
	// omitted when nothing says.
	PendingReason string `json:"pendingReason,omitempty"`
}

// Latency is the group's latency cell: the measured p95 slowdown over the
// target and how many DAGs it is over ("2.4 / 2 (50 DAGs)"), as the
// overview and the group page show it (app.js's latency is the same).
func (g Group) Latency() string {
	measured := "-"
	if g.MeasuredDAGs > 0 {
		measured = strconv.FormatFloat(g.MeasuredP95, 'g', 3, 64)
	}
	s := measured
	if g.TargetP95 > 0 {
		s += " / " + strconv.FormatFloat(g.TargetP95, 'g', -1, 64)
	}
	switch {
	case g.MeasuredDAGs == 1:
		s += " (1 DAG)"
	case g.MeasuredDAGs > 1:
		s += " (" + strconv.Itoa(g.MeasuredDAGs) + " DAGs)"
	}
	return s
}

// GroupDetail is GET api/v1/groups/{name}: the chart's data.
type GroupDetail struct {
	Group
	Usage       []core.UsagePoint `json:"usage"`       // samples for the autoscaler chart, oldest first
	Transitions []Transition      `json:"transitions"` // its autoscaler state changes
	Moves       []Move            `json:"moves"`       // workers recycled to or from it
}

// Node is one node: YARN's figure (containers) beside ebb's (tasks).
type Node struct {
	ID          string   `json:"id"`          // the node (host:port of its NodeManager, or a local virtual node)
	CapacityMB  int64    `json:"capacityMB"`  // the node's memory
	ContainerMB int64    `json:"containerMB"` // YARN's allocated memory: this AM's containers
	TaskMB      int64    `json:"taskMB"`      // ebb's: memory of running attempts
	Packing     string   `json:"packing"`     // high, medium, low (by task memory)
	Workers     int      `json:"workers"`     // this AM's workers on it
	Draining    bool     `json:"draining"`    // a scale-in is emptying it
	Groups      []string `json:"groups"`      // the groups whose workers run on it
	// State is the node's state as the cluster reports it (RUNNING,
	// DECOMMISSIONING, UNHEALTHY, LOST, ...); DrainBy, for a
	// decommissioning node, when the cluster kills what still runs there.
	State   string     `json:"state"`
	DrainBy *time.Time `json:"drainBy,omitempty"` // a decommissioning node's deadline
}

// Worker is one ContainerWorker.
type Worker struct {
	ID        string         `json:"id"`                  // the worker id
	Group     string         `json:"group"`               // its group
	Kind      string         `json:"kind"`                // its group's kind
	Node      string         `json:"node"`                // its node
	Container string         `json:"container"`           // its container
	MemoryMB  int64          `json:"memoryMB"`            // offered to attempts
	TaskMB    int64          `json:"taskMB"`              // used by running attempts
	Running   []string       `json:"running"`             // ids of the attempts it runs
	Outputs   map[string]int `json:"outputs"`             // outputs held, per DAG id
	Draining  bool           `json:"draining"`            // it takes no new attempts (its node is being emptied)
	Stopping  bool           `json:"stopping"`            // the AM told it to stop
	RecycleTo string         `json:"recycleTo,omitempty"` // the group it is being handed to (recycling)
	WorkerLog string         `json:"workerLog,omitempty"` // a link to its log
}

// Transition is one autoscaler state change.
type Transition struct {
	At     time.Time `json:"at"`     // when
	Group  string    `json:"group"`  // the group
	From   string    `json:"from"`   // the state before: STABLE, SCALE_OUT or SCALE_IN
	To     string    `json:"to"`     // the state after
	Reason string    `json:"reason"` // why, in the autoscaler's words (usage, thresholds, workers)
}

// Move is a worker recycled from one group to another.
type Move struct {
	At     time.Time `json:"at"`     // when
	Worker string    `json:"worker"` // the worker
	From   string    `json:"from"`   // the group it left
	To     string    `json:"to"`     // the group it joined
}

// APIRoute is one route of the JSON API, for its reference
// (docs/reference/api.md is generated from apiRoutes).
type APIRoute struct {
	Path string // served for GET
	Doc  string
	// Body is a zero value of what it answers: its JSON fields are the
	// route's contract.
	Body any
}

type apiRoute struct {
	APIRoute
	get func(u *UI, v View, r *http.Request) (any, bool)
}

// apiRoutes is the API: every route, what it answers and how.
var apiRoutes = []apiRoute{
	{APIRoute{"/api/v1/overview", "The application, its DAGs, groups, nodes, recent autoscaler transitions and worker moves.", Overview{}},
		func(u *UI, v View, _ *http.Request) (any, bool) { return u.overview(v), true }},
	{APIRoute{"/api/v1/dags", "The DAGs (`ebb dag status --json` prints it).", []DAG{}},
		func(u *UI, v View, _ *http.Request) (any, bool) { return u.overview(v).DAGs, true }},
	{APIRoute{"/api/v1/dags/{id}", "One DAG with its vertices, edges and attempts; `?vertex=NAME` keeps one vertex's attempts, `?limit=N` the latest N.", DAGDetail{}},
		func(u *UI, v View, r *http.Request) (any, bool) {
			return u.dagDetail(v, r.PathValue("id"), filterOf(r))
		}},
	{APIRoute{"/api/v1/groups", "The ContainerGroups and their autoscalers.", []Group{}},
		func(u *UI, v View, _ *http.Request) (any, bool) { return u.overview(v).Groups, true }},
	{APIRoute{"/api/v1/groups/{name}", "One group with its usage samples (the chart's data), transitions and moves.", GroupDetail{}},
		func(u *UI, v View, r *http.Request) (any, bool) { return u.groupDetail(v, r.PathValue("name")) }},
	{APIRoute{"/api/v1/workers", "The ContainerWorkers.", []Worker{}},
		func(u *UI, v View, _ *http.Request) (any, bool) { return u.workers(v), true }},
	{APIRoute{"/api/v1/nodes", "The nodes holding workers: YARN's figures beside ebb's.", []Node{}},
		func(u *UI, v View, _ *http.Request) (any, bool) { return u.overview(v).Nodes, true }},
	{APIRoute{"/api/v1/attempts/{id}", "One attempt.", Attempt{}},
		func(u *UI, v View, r *http.Request) (any, bool) {
			a, ok := v.Attempt(r.PathValue("id"))
			return u.attemptAt(a, v.Now()), ok
		}},
}

// APIRoutes returns the JSON API's routes, for its reference.
func APIRoutes() []APIRoute {
	out := make([]APIRoute, len(apiRoutes))
	for i, r := range apiRoutes {
		out[i] = r.APIRoute
	}
	return out
}

func (u *UI) registerAPI() {
	for _, rt := range apiRoutes {
		get := rt.get
		u.mux.HandleFunc("GET "+rt.Path, apiHandler(u, func(v View, r *http.Request) (any, bool) { return get(u, v, r) }))
	}
}

// apiHandler answers one API route: 404 when the thing is unknown, 503
// when the AM's loop does not answer in time.
func apiHandler(u *UI, get func(v View, r *http.Request) (any, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var out any
		var ok bool
		if err := u.read(r, func(v View) { out, ok = get(v, r) }); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		writeBody(w, b)
	}
}
