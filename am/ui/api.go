package ui

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// The JSON API (documented in the README): the pages poll it and
// `ebb dag status --json` prints it. Field names are the API's contract;
// the structs below are its only definition.

// Overview is GET api/v1/overview.
type Overview struct {
	App         AppInfo      `json:"app"`
	Now         time.Time    `json:"now"`
	UptimeSecs  float64      `json:"uptimeSecs"`
	DAGs        []DAG        `json:"dags"`
	Groups      []Group      `json:"groups"`
	Nodes       []Node       `json:"nodes"`
	Transitions []Transition `json:"transitions"`
	Moves       []Move       `json:"moves"`
}

// DAG is one DAG's progress.
type DAG struct {
	ID             string     `json:"id"`
	Name           string     `json:"name"`
	State          string     `json:"state"`
	Group          string     `json:"group"`
	Submitted      time.Time  `json:"submitted"`
	Finished       *time.Time `json:"finished,omitempty"`
	Goal           *time.Time `json:"goal,omitempty"`
	GoalStatus     string     `json:"goalStatus,omitempty"` // on track, at risk, met, missed
	Tasks          int        `json:"tasks"`
	Succeeded      int        `json:"succeeded"`
	Running        int        `json:"running"`
	FailedAttempts int        `json:"failedAttempts"`
	Progress       float64    `json:"progress"` // 0..1, succeeded tasks / tasks
	SReq           float64    `json:"sReq"`
	Utility        float64    `json:"utility"`
	Slots          int        `json:"slots"`
	Diagnostics    string     `json:"diagnostics,omitempty"`
	Output         string     `json:"output,omitempty"`
	// Compacted: the AM keeps only this summary of a finished DAG
	// (ebb.am.dag.retained.count); its page comes from the history.
	Compacted bool `json:"compacted,omitempty"`
	// Backups: speculative execution's backup attempts (nil: none).
	Backups *Backups `json:"backups,omitempty"`
	// SlowNodes: the nodes where the DAG's attempts straggled; its
	// backups and, while others have room, its later attempts go elsewhere.
	SlowNodes []string `json:"slowNodes,omitempty"`
}

// Backups are a DAG's backup attempts and how their races ended.
type Backups struct {
	Launched int `json:"launched"`
	Won      int `json:"won"`  // the backup finished first
	Lost     int `json:"lost"` // the original finished first
}

// DAGDetail is GET api/v1/dags/{id}.
type DAGDetail struct {
	DAG
	Vertices []Vertex  `json:"vertices"`
	Edges    []Edge    `json:"edges"`
	Attempts []Attempt `json:"attempts"`
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
	Name      string `json:"name"`
	Tasks     int    `json:"tasks"`
	Succeeded int    `json:"succeeded"`
	Running   int    `json:"running"`
	Queued    int    `json:"queued"`
	Waiting   int    `json:"waiting"`
	MemoryMB  int64  `json:"memoryMB"`
	Depth     int    `json:"depth"`
}

// Edge joins two vertices.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Type string `json:"type"`
}

// Attempt is one execution of a task.
type Attempt struct {
	ID           string            `json:"id"`
	Vertex       string            `json:"vertex"`
	Task         int               `json:"task"`
	Number       int               `json:"number"`
	MemoryMB     int64             `json:"memoryMB"` // asked for: more than the vertex's after a kill for memory
	State        string            `json:"state"`
	Worker       string            `json:"worker"`
	Container    string            `json:"container"`
	Node         string            `json:"node"`
	Start        time.Time         `json:"start"`
	End          *time.Time        `json:"end,omitempty"`
	DurationSecs float64           `json:"durationSecs"`
	ExitCode     int               `json:"exitCode"`
	Diagnostics  string            `json:"diagnostics,omitempty"`
	Logs         map[string]string `json:"logs,omitempty"` // stdout, stderr, worker: URLs relative to the UI root or absolute
	// Speculative: a backup attempt for a straggler; Loser: killed because
	// the other attempt of its task finished first (not a failure).
	Speculative bool `json:"speculative,omitempty"`
	Loser       bool `json:"loser,omitempty"`
}

// Group is one ContainerGroup and its autoscaler.
type Group struct {
	Name            string  `json:"name"`
	Kind            string  `json:"kind"`
	State           string  `json:"state"` // STABLE, SCALE_OUT, SCALE_IN
	Autoscaled      bool    `json:"autoscaled"`
	UsagePercent    float64 `json:"usagePercent"`
	OutThreshold    int     `json:"scaleOutThresholdPercent"`
	InThreshold     int     `json:"scaleInThresholdPercent"`
	WorkersWanted   int     `json:"workersWanted"`
	Workers         int     `json:"workers"`
	WorkersPending  int     `json:"workersPending"`
	WorkersDraining int     `json:"workersDraining"`
	Nodes           int     `json:"nodes"`
	NodesDraining   int     `json:"nodesDraining"`
	QueuedAttempts  int     `json:"queuedAttempts"`
	RunningAttempts int     `json:"runningAttempts"`
	TaskMB          int64   `json:"taskMB"`
	OfferedMB       int64   `json:"offeredMB"`
	WorkerMemoryMB  int64   `json:"workerMemoryMB"`
	// SizedByEbb: the DAG left workerMemoryMB out and ebb chose it.
	SizedByEbb bool `json:"workerMemorySizedByEbb"`
	// Preemption: containers the RM warned of, the AM gave back before
	// the kill, and the RM killed (-102).
	PreemptWarned    int `json:"preemptionWarned"`
	PreemptGivenBack int `json:"preemptionGivenBack"`
	PreemptLost      int `json:"preemptionLost"`
	// SlowStartKilled: gathering consumers the AM killed to break a
	// slow-start stall (core/stall.go).
	SlowStartKilled int `json:"slowStartKilled"`
}

// GroupDetail is GET api/v1/groups/{name}: the chart's data.
type GroupDetail struct {
	Group
	Usage       []core.UsagePoint `json:"usage"`
	Transitions []Transition      `json:"transitions"`
	Moves       []Move            `json:"moves"`
}

// Node is one node: YARN's figure (containers) beside ebb's (tasks).
type Node struct {
	ID          string   `json:"id"`
	CapacityMB  int64    `json:"capacityMB"`
	ContainerMB int64    `json:"containerMB"` // YARN's allocated memory: this AM's containers
	TaskMB      int64    `json:"taskMB"`      // ebb's: memory of running attempts
	Packing     string   `json:"packing"`     // high, medium, low (by task memory)
	Workers     int      `json:"workers"`
	Draining    bool     `json:"draining"`
	Groups      []string `json:"groups"`
	// State is the node's state as the cluster reports it (RUNNING,
	// DECOMMISSIONING, UNHEALTHY, LOST, ...); DrainBy, for a
	// decommissioning node, when the cluster kills what still runs there.
	State   string     `json:"state"`
	DrainBy *time.Time `json:"drainBy,omitempty"`
}

// Worker is one ContainerWorker.
type Worker struct {
	ID        string         `json:"id"`
	Group     string         `json:"group"`
	Kind      string         `json:"kind"`
	Node      string         `json:"node"`
	Container string         `json:"container"`
	MemoryMB  int64          `json:"memoryMB"` // offered to attempts
	TaskMB    int64          `json:"taskMB"`   // used by running attempts
	Running   []string       `json:"running"`
	Outputs   map[string]int `json:"outputs"` // outputs held, per DAG id
	Draining  bool           `json:"draining"`
	Stopping  bool           `json:"stopping"`
	RecycleTo string         `json:"recycleTo,omitempty"`
	WorkerLog string         `json:"workerLog,omitempty"`
}

// Transition is one autoscaler state change.
type Transition struct {
	At     time.Time `json:"at"`
	Group  string    `json:"group"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

// Move is a worker recycled from one group to another.
type Move struct {
	At     time.Time `json:"at"`
	Worker string    `json:"worker"`
	From   string    `json:"from"`
	To     string    `json:"to"`
}

func (u *UI) apiRoutes() {
	u.mux.HandleFunc("GET /api/v1/overview", apiHandler(u, func(v View, _ *http.Request) (any, bool) { return u.overview(v), true }))
	u.mux.HandleFunc("GET /api/v1/dags", apiHandler(u, func(v View, _ *http.Request) (any, bool) { return u.overview(v).DAGs, true }))
	u.mux.HandleFunc("GET /api/v1/dags/{id}", apiHandler(u, func(v View, r *http.Request) (any, bool) { return u.dagDetail(v, r.PathValue("id"), filterOf(r)) }))
	u.mux.HandleFunc("GET /api/v1/groups", apiHandler(u, func(v View, _ *http.Request) (any, bool) { return u.overview(v).Groups, true }))
	u.mux.HandleFunc("GET /api/v1/groups/{name}", apiHandler(u, func(v View, r *http.Request) (any, bool) { return u.groupDetail(v, r.PathValue("name")) }))
	u.mux.HandleFunc("GET /api/v1/workers", apiHandler(u, func(v View, _ *http.Request) (any, bool) { return u.workers(v), true }))
	u.mux.HandleFunc("GET /api/v1/nodes", apiHandler(u, func(v View, _ *http.Request) (any, bool) { return u.overview(v).Nodes, true }))
	u.mux.HandleFunc("GET /api/v1/attempts/{id}", apiHandler(u, func(v View, r *http.Request) (any, bool) {
		a, ok := v.Attempt(r.PathValue("id"))
		return u.attemptAt(a, v.Now()), ok
	}))
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
