package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// Snapshot is a whole View frozen as data: what the AM writes to its
// history at the end, and what `ebb history` and `ebb ui --history` serve
// with the same pages as a live AM (like Spark's history server).
//
// Its lists are the history's own tagged types (histtypes.go), never the
// core's, so the file's format changes only on purpose.
type Snapshot struct {
	Version    int                    `json:"version"`
	App        AppInfo                `json:"app"`
	At         time.Time              `json:"at"`
	DAGList    []histDAGStatus        `json:"dags"`
	DAGDetails map[string]histDAGView `json:"dagViews"`
	Groups     []histGroup            `json:"groups"`
	WorkerList []histWorker           `json:"workers"`
	Nodes      []histNode             `json:"nodes"`
	TransList  []histTransition       `json:"transitions"`
	MoveList   []histMove             `json:"moves"`
}

// historyVersion changes when a Snapshot's layout does, so an older ebb
// says what it cannot read rather than showing half a page. Version 2
// added the nodes' State and DrainBy and the groups' preemption counters; a version-1 file still reads (every
// node RUNNING), so oldestHistoryVersion stays 1. Version 3 added the
// groups' slow-start kills (SlowStartKilled) and speculative execution (a
// DAG's backup counts, whether an attempt was a backup or lost its race);
// version 4 a DAG's slow nodes; version 5 the groups' latency target and
// measured p95, the counters of DAGs, vertices and attempts, and
// attempts' status; version 6 the groups' evicted containers; all are
// zero when absent, so older files still read.
const (
	historyVersion       = 6
	oldestHistoryVersion = 1
)

// readableVersion reports whether this ebb reads a history of version v.
func readableVersion(v int) bool { return v >= oldestHistoryVersion && v <= historyVersion }

// Capture freezes a view (on the loop goroutine, for a live AM).
func Capture(app AppInfo, v View) Snapshot {
	dags := v.DAGs()
	s := Snapshot{Version: historyVersion, App: app, At: v.Now(), DAGList: mapSlice(dags, toHistStatus),
		DAGDetails: map[string]histDAGView{}, Groups: mapSlice(v.GroupViews(), toHistGroup),
		WorkerList: mapSlice(v.Workers(), toHistWorker), Nodes: mapSlice(v.NodeViews(), toHistNode),
		TransList: mapSlice(v.Transitions(), toHistTransition), MoveList: mapSlice(v.Moves(), toHistMove)}
	for _, d := range dags {
		// A compacted DAG's detail is in its own record (DAGRecord).
		if dv, ok := v.DAGView(d.ID); ok && !dv.Compacted {
			s.DAGDetails[d.ID] = toHistDAGView(dv)
		}
	}
	if s.App.Finished.IsZero() {
		s.App.Finished = s.At
	}
	return s
}

// Encode writes a snapshot as JSON.
func (s Snapshot) Encode() ([]byte, error) { return json.Marshal(s) }

// DecodeSnapshot reads what Encode wrote.
func DecodeSnapshot(b []byte) (*Snapshot, error) {
	var s Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading the application's history: %w", err)
	}
	if !readableVersion(s.Version) {
		return nil, fmt.Errorf("the history has version %d; this ebb reads version %d", s.Version, historyVersion)
	}
	return &s, nil
}

// The Snapshot is a View.
var _ View = (*Snapshot)(nil)

func (s *Snapshot) Now() time.Time                 { return s.At }
func (s *Snapshot) DAGs() []core.DAGStatus         { return mapSlice(s.DAGList, histDAGStatus.core) }
func (s *Snapshot) GroupViews() []core.GroupView   { return mapSlice(s.Groups, histGroup.core) }
func (s *Snapshot) Workers() []core.WorkerView     { return mapSlice(s.WorkerList, histWorker.core) }
func (s *Snapshot) NodeViews() []core.NodeView     { return mapSlice(s.Nodes, histNode.core) }
func (s *Snapshot) Transitions() []core.Transition { return mapSlice(s.TransList, histTransition.core) }
func (s *Snapshot) Moves() []core.WorkerMove       { return mapSlice(s.MoveList, histMove.core) }

func (s *Snapshot) DAGView(id string) (core.DAGView, bool) {
	d, ok := s.DAGDetails[id]
	if !ok {
		return core.DAGView{}, false
	}
	return d.core(), true
}

func (s *Snapshot) Attempt(id string) (core.AttemptRecord, bool) {
	for _, d := range s.DAGDetails {
		for _, a := range d.Attempts {
			if a.ID == id {
				return a.core(), true
			}
		}
	}
	return core.AttemptRecord{}, false
}

// Read serves the frozen view; nothing changes it, so no lock.
func (s *Snapshot) Read(_ context.Context, f func(View)) error {
	f(s)
	return nil
}

// NewHistory serves a finished application's pages from its snapshot.
// Logs link as they did while it ran (the NodeManager keeps them, or YARN
// aggregates them); the pages do not poll, since nothing changes.
func NewHistory(s *Snapshot, o Options) *UI {
	o.App = s.App
	return New(s, o)
}

// DAGRecord is one finished DAG's detail as the history keeps it: written
// once, when the DAG's output has settled, one file per DAG beside the
// application's snapshot, so the snapshot need not carry every DAG the
// application ever ran and the UI can still show a DAG the core has
// compacted (Options.DAGHistory).
type DAGRecord struct {
	Version int         `json:"version"`
	DAG     histDAGView `json:"dag"`
}

// EncodeDAG writes a DAG's record.
func EncodeDAG(v core.DAGView) ([]byte, error) {
	return json.Marshal(DAGRecord{Version: historyVersion, DAG: toHistDAGView(v)})
}

// DecodeDAG reads what EncodeDAG wrote.
func DecodeDAG(b []byte) (core.DAGView, error) {
	var r DAGRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return core.DAGView{}, fmt.Errorf("reading a DAG's history: %w", err)
	}
	if !readableVersion(r.Version) {
		return core.DAGView{}, fmt.Errorf("the DAG's history has version %d; this ebb reads version %d", r.Version, historyVersion)
	}
	return r.DAG.core(), nil
}
