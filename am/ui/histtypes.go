package ui

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// The history's own types: what a Snapshot and a DAGRecord write, tagged
// field by field, so that the file's format is written here and changes
// only here. The core's view types are the live AM's and change as the
// core does: a core field renamed is a compile error in the conversions
// below, not a field silently blank in every older history file. The keys
// are the names version 1 was written with (the core's field names of the
// time), so files written before these types existed still read.
//
// history_test.go holds the format against testdata/history-vN.json: a
// change to it without a new historyVersion fails there.

type histDAGStatus struct {
	ID          string          `json:"ID"`
	Name        string          `json:"Name"`
	State       int             `json:"State"` // core.DAGState's number
	Diagnostics string          `json:"Diagnostics"`
	Group       string          `json:"Group"`
	Output      string          `json:"Output"`
	Submit      time.Time       `json:"Submit"`
	Finish      time.Time       `json:"Finish"`
	Goal        time.Time       `json:"Goal"`
	TotalTasks  int             `json:"TotalTasks"`
	Succeeded   int             `json:"Succeeded"`
	Running     int             `json:"Running"`
	Failed      int             `json:"Failed"`
	Recovered   bool            `json:"Recovered"`
	Compacted   bool            `json:"Compacted"`
	Vertices    []histVertexSum `json:"Vertices"`
	SReq        float64         `json:"SReq"`
	Utility     float64         `json:"Utility"`
	Slots       int             `json:"Slots"`
	// Speculation: version 3.
	Speculation histSpeculation `json:"Speculation"`
	// SlowNodes: version 4.
	SlowNodes []string `json:"SlowNodes"`
	// Counters: version 5.
	Counters []histCounter `json:"Counters,omitempty"`
}

// histCounter is a core.Counter as the history keeps it (version 5).
type histCounter struct {
	Group string `json:"Group"`
	Name  string `json:"Name"`
	Value int64  `json:"Value"`
}

func toHistCounters(cs []core.Counter) []histCounter {
	return mapSlice(cs, func(c core.Counter) histCounter { return histCounter(c) })
}

func coreCounters(hs []histCounter) []core.Counter {
	return mapSlice(hs, func(h histCounter) core.Counter { return core.Counter(h) })
}

// histSpeculation is core.SpeculationCounts as the history file keeps it.
type histSpeculation struct {
	Launched int `json:"Launched"`
	Won      int `json:"Won"`
	Lost     int `json:"Lost"`
}

type histVertexSum struct {
	Name      string `json:"Name"`
	Total     int    `json:"Total"`
	Succeeded int    `json:"Succeeded"`
	Running   int    `json:"Running"`
	// Counters: version 5.
	Counters []histCounter `json:"Counters,omitempty"`
}

// histDAGView is a DAGView: its status fields, then its graph (Vertices
// here are the detailed ones, as in version 1, where the embedded status's
// vertex list was shadowed and never written).
type histDAGView struct {
	histDAGStatus
	Edges    []histEdge    `json:"Edges"`
	Vertices []histVertex  `json:"Vertices"`
	Attempts []histAttempt `json:"Attempts"`
}

type histEdge struct {
	From string `json:"From"`
	To   string `json:"To"`
	Type string `json:"Type"`
}

type histVertex struct {
	histVertexSum
	MemoryMB int64 `json:"MemoryMB"`
	VCores   int   `json:"VCores"`
	Queued   int   `json:"Queued"`
	Waiting  int   `json:"Waiting"`
	Depth    int   `json:"Depth"`
}

type histAttempt struct {
	ID          string    `json:"ID"`
	DAG         string    `json:"DAG"`
	Vertex      string    `json:"Vertex"`
	Task        int       `json:"Task"`
	Number      int       `json:"Number"`
	MemoryMB    int64     `json:"MemoryMB"`
	Worker      string    `json:"Worker"`
	Container   string    `json:"Container"`
	Node        string    `json:"Node"`
	Start       time.Time `json:"Start"`
	End         time.Time `json:"End"`
	State       string    `json:"State"`
	ExitCode    int       `json:"ExitCode"`
	Diagnostics string    `json:"Diagnostics"`
	Progress    float64   `json:"Progress"`
	// Speculative and Loser: version 3.
	Speculative bool `json:"Speculative"`
	Loser       bool `json:"Loser"`
	// Status and Counters: version 5.
	Status   string        `json:"Status,omitempty"`
	Counters []histCounter `json:"Counters,omitempty"`
}

type histGroup struct {
	Name            string           `json:"Name"`
	State           string           `json:"State"`
	UsagePercent    float64          `json:"UsagePercent"`
	Workers         int              `json:"Workers"`
	PendingWorkers  int              `json:"PendingWorkers"`
	Nodes           int              `json:"Nodes"`
	QueuedAttempts  int              `json:"QueuedAttempts"`
	RunningAttempts int              `json:"RunningAttempts"`
	RunningMB       int64            `json:"RunningMB"`
	OfferedMB       int64            `json:"OfferedMB"`
	NeedsWorkers    bool             `json:"NeedsWorkers"`
	Preempt         histPreempt      `json:"Preempt"`
	Kind            string           `json:"Kind"`
	MemoryMB        int64            `json:"MemoryMB"`
	SizedByEbb      bool             `json:"SizedByEbb"`
	VCores          int              `json:"VCores"`
	Autoscaled      bool             `json:"Autoscaled"`
	OutThreshold    int              `json:"OutThreshold"`
	InThreshold     int              `json:"InThreshold"`
	Wanted          int              `json:"Wanted"`
	Draining        int              `json:"Draining"`
	DrainingNodes   int              `json:"DrainingNodes"`
	Usage           []histUsagePoint `json:"Usage"`
	// The latency target and the p95 measured: version 5.
	TargetP95    float64 `json:"TargetP95,omitempty"`
	MeasuredP95  float64 `json:"MeasuredP95,omitempty"`
	MeasuredDAGs int     `json:"MeasuredDAGs,omitempty"`
}

type histUsagePoint struct {
	At             time.Time `json:"At"`
	UsagePercent   float64   `json:"UsagePercent"`
	InstantPercent float64   `json:"InstantPercent"`
	State          string    `json:"State"`
	Wanted         int       `json:"Wanted"`
	Running        int       `json:"Running"`
	Draining       int       `json:"Draining"`
	Nodes          int       `json:"Nodes"`
	DrainingNodes  int       `json:"DrainingNodes"`
	Queued         int       `json:"Queued"`
}

type histWorker struct {
	ID          string         `json:"ID"`
	Group       string         `json:"Group"`
	Kind        string         `json:"Kind"`
	Node        string         `json:"Node"`
	ContainerID string         `json:"ContainerID"`
	MemoryMB    int64          `json:"MemoryMB"`
	UsedMB      int64          `json:"UsedMB"`
	Running     []string       `json:"Running"`
	Outputs     map[string]int `json:"Outputs"`
	Draining    bool           `json:"Draining"`
	Stopping    bool           `json:"Stopping"`
	RecycleTo   string         `json:"RecycleTo"`
	LastSeen    time.Time      `json:"LastSeen"`
}

type histNode struct {
	ID          string   `json:"ID"`
	CapacityMB  int64    `json:"CapacityMB"`
	UsedMB      int64    `json:"UsedMB"`
	Workers     int      `json:"Workers"`
	Draining    bool     `json:"Draining"`
	Idle        bool     `json:"Idle"`
	ContainerMB int64    `json:"ContainerMB"`
	Groups      []string `json:"Groups"`
	// Since version 2; absent (RUNNING, no timeout) in version 1.
	State   core.NodeState `json:"State,omitzero"`
	DrainBy time.Time      `json:"DrainBy,omitzero"`
}

type histTransition struct {
	At     time.Time `json:"At"`
	Group  string    `json:"Group"`
	From   string    `json:"From"`
	To     string    `json:"To"`
	Reason string    `json:"Reason"`
}

type histMove struct {
	At     time.Time `json:"At"`
	Worker string    `json:"Worker"`
	From   string    `json:"From"`
	To     string    `json:"To"`
}

// The conversions, both ways: to the history when it is written, back to
// the core's views when the pages read it.

func toHistStatus(s core.DAGStatus) histDAGStatus {
	return histDAGStatus{ID: s.ID, Name: s.Name, State: int(s.State), Diagnostics: s.Diagnostics, Group: s.Group,
		Output: s.Output, Submit: s.Submit, Finish: s.Finish, Goal: s.Goal, TotalTasks: s.TotalTasks,
		Succeeded: s.Succeeded, Running: s.Running, Failed: s.Failed, Recovered: s.Recovered, Compacted: s.Compacted,
		SReq: s.SReq, Utility: s.Utility, Slots: s.Slots, Vertices: mapSlice(s.Vertices, toHistVertexSum),
		Speculation: histSpeculation(s.Speculation), SlowNodes: s.SlowNodes, Counters: toHistCounters(s.Counters)}
}

func (h histDAGStatus) core() core.DAGStatus {
	return core.DAGStatus{ID: h.ID, Name: h.Name, State: core.DAGState(h.State), Diagnostics: h.Diagnostics, Group: h.Group,
		Output: h.Output, Submit: h.Submit, Finish: h.Finish, Goal: h.Goal, TotalTasks: h.TotalTasks,
		Succeeded: h.Succeeded, Running: h.Running, Failed: h.Failed, Recovered: h.Recovered, Compacted: h.Compacted,
		SReq: h.SReq, Utility: h.Utility, Slots: h.Slots, Vertices: mapSlice(h.Vertices, histVertexSum.core),
		Speculation: core.SpeculationCounts(h.Speculation), SlowNodes: h.SlowNodes, Counters: coreCounters(h.Counters)}
}

func toHistVertexSum(v core.VertexStatus) histVertexSum {
	return histVertexSum{Name: v.Name, Total: v.Total, Succeeded: v.Succeeded, Running: v.Running, Counters: toHistCounters(v.Counters)}
}

func (h histVertexSum) core() core.VertexStatus {
	return core.VertexStatus{Name: h.Name, Total: h.Total, Succeeded: h.Succeeded, Running: h.Running, Counters: coreCounters(h.Counters)}
}

func toHistDAGView(v core.DAGView) histDAGView {
	h := histDAGView{histDAGStatus: toHistStatus(v.DAGStatus)}
	h.Edges = mapSlice(v.Edges, func(e core.EdgeView) histEdge { return histEdge{From: e.From, To: e.To, Type: e.Type} })
	h.Vertices = mapSlice(v.Vertices, func(x core.VertexView) histVertex {
		return histVertex{histVertexSum: toHistVertexSum(x.VertexStatus), MemoryMB: x.MemoryMB, VCores: x.VCores,
			Queued: x.Queued, Waiting: x.Waiting, Depth: x.Depth}
	})
	h.Attempts = mapSlice(v.Attempts, toHistAttempt)
	return h
}

func (h histDAGView) core() core.DAGView {
	v := core.DAGView{DAGStatus: h.histDAGStatus.core()}
	v.Edges = mapSlice(h.Edges, func(e histEdge) core.EdgeView { return core.EdgeView{From: e.From, To: e.To, Type: e.Type} })
	v.Vertices = mapSlice(h.Vertices, histVertex.core)
	v.Attempts = mapSlice(h.Attempts, histAttempt.core)
	return v
}

func (h histVertex) core() core.VertexView {
	return core.VertexView{VertexStatus: h.histVertexSum.core(), MemoryMB: h.MemoryMB, VCores: h.VCores,
		Queued: h.Queued, Waiting: h.Waiting, Depth: h.Depth}
}

func toHistAttempt(a core.AttemptRecord) histAttempt {
	return histAttempt{ID: a.ID, DAG: a.DAG, Vertex: a.Vertex, Task: a.Task, Number: a.Number, MemoryMB: a.MemoryMB,
		Worker: a.Worker, Container: a.Container, Node: a.Node, Start: a.Start, End: a.End, State: a.State,
		ExitCode: a.ExitCode, Diagnostics: a.Diagnostics, Progress: a.Progress, Speculative: a.Speculative, Loser: a.Loser,
		Status: a.Status, Counters: toHistCounters(a.Counters)}
}

func (h histAttempt) core() core.AttemptRecord {
	return core.AttemptRecord{ID: h.ID, DAG: h.DAG, Vertex: h.Vertex, Task: h.Task, Number: h.Number, MemoryMB: h.MemoryMB,
		Worker: h.Worker, Container: h.Container, Node: h.Node, Start: h.Start, End: h.End, State: h.State,
		ExitCode: h.ExitCode, Diagnostics: h.Diagnostics, Progress: h.Progress, Speculative: h.Speculative, Loser: h.Loser,
		Status: h.Status, Counters: coreCounters(h.Counters)}
}

// histPreempt is core.PreemptCounts as the history file keeps it.
type histPreempt struct {
	Warned    int `json:"Warned"`
	GivenBack int `json:"GivenBack"`
	Lost      int `json:"Lost"`
	// Evicted: omitted when 0, so history files written before it
	// existed read back the same.
	Evicted int `json:"Evicted,omitempty"`
	// SlowStartKilled: omitted when 0, so history files written before
	// it existed read back the same.
	SlowStartKilled int `json:"SlowStartKilled,omitempty"`
}

func toHistGroup(g core.GroupView) histGroup {
	return histGroup{Name: g.Name, State: g.State, UsagePercent: g.UsagePercent, Workers: g.Workers,
		PendingWorkers: g.PendingWorkers, Nodes: g.Nodes, QueuedAttempts: g.QueuedAttempts,
		RunningAttempts: g.RunningAttempts, RunningMB: g.RunningMB, OfferedMB: g.OfferedMB, NeedsWorkers: g.NeedsWorkers,
		Preempt: histPreempt(g.Preempt), Kind: g.Kind, MemoryMB: g.MemoryMB, SizedByEbb: g.SizedByEbb, VCores: g.VCores, Autoscaled: g.Autoscaled,
		OutThreshold: g.OutThreshold, InThreshold: g.InThreshold, Wanted: g.Wanted, Draining: g.Draining,
		DrainingNodes: g.DrainingNodes, Usage: mapSlice(g.Usage, func(p core.UsagePoint) histUsagePoint {
			return histUsagePoint{At: p.At, UsagePercent: p.UsagePercent, InstantPercent: p.InstantPercent, State: p.State,
				Wanted: p.Wanted, Running: p.Running, Draining: p.Draining, Nodes: p.Nodes, DrainingNodes: p.DrainingNodes,
				Queued: p.Queued}
		}), TargetP95: g.TargetP95, MeasuredP95: g.MeasuredP95, MeasuredDAGs: g.MeasuredDAGs}
}

func (h histGroup) core() core.GroupView {
	return core.GroupView{GroupStatus: core.GroupStatus{Name: h.Name, State: h.State, UsagePercent: h.UsagePercent,
		Workers: h.Workers, PendingWorkers: h.PendingWorkers, Nodes: h.Nodes, QueuedAttempts: h.QueuedAttempts,
		RunningAttempts: h.RunningAttempts, RunningMB: h.RunningMB, OfferedMB: h.OfferedMB, NeedsWorkers: h.NeedsWorkers,
		Preempt: core.PreemptCounts(h.Preempt), TargetP95: h.TargetP95, MeasuredP95: h.MeasuredP95, MeasuredDAGs: h.MeasuredDAGs},
		Kind: h.Kind, MemoryMB: h.MemoryMB, SizedByEbb: h.SizedByEbb, VCores: h.VCores, Autoscaled: h.Autoscaled,
		OutThreshold: h.OutThreshold, InThreshold: h.InThreshold, Wanted: h.Wanted, Draining: h.Draining,
		DrainingNodes: h.DrainingNodes, Usage: mapSlice(h.Usage, func(p histUsagePoint) core.UsagePoint {
			return core.UsagePoint{At: p.At, UsagePercent: p.UsagePercent, InstantPercent: p.InstantPercent, State: p.State,
				Wanted: p.Wanted, Running: p.Running, Draining: p.Draining, Nodes: p.Nodes, DrainingNodes: p.DrainingNodes,
				Queued: p.Queued}
		})}
}

func toHistWorker(w core.WorkerView) histWorker {
	return histWorker{ID: w.ID, Group: w.Group, Kind: w.Kind, Node: w.Node, ContainerID: w.ContainerID,
		MemoryMB: w.MemoryMB, UsedMB: w.UsedMB, Running: w.Running, Outputs: w.Outputs, Draining: w.Draining,
		Stopping: w.Stopping, RecycleTo: w.RecycleTo, LastSeen: w.LastSeen}
}

func (h histWorker) core() core.WorkerView {
	return core.WorkerView{ID: h.ID, Group: h.Group, Kind: h.Kind, Node: h.Node, ContainerID: h.ContainerID,
		MemoryMB: h.MemoryMB, UsedMB: h.UsedMB, Running: h.Running, Outputs: h.Outputs, Draining: h.Draining,
		Stopping: h.Stopping, RecycleTo: h.RecycleTo, LastSeen: h.LastSeen}
}

func toHistNode(n core.NodeView) histNode {
	return histNode{ID: n.ID, CapacityMB: n.CapacityMB, UsedMB: n.UsedMB, Workers: n.Workers, Draining: n.Draining,
		Idle: n.Idle, ContainerMB: n.ContainerMB, Groups: n.Groups, State: n.State, DrainBy: n.DrainBy}
}

func (h histNode) core() core.NodeView {
	return core.NodeView{NodeStatus: core.NodeStatus{ID: h.ID, CapacityMB: h.CapacityMB, UsedMB: h.UsedMB,
		Workers: h.Workers, Draining: h.Draining, Idle: h.Idle, State: h.State, DrainBy: h.DrainBy}, ContainerMB: h.ContainerMB, Groups: h.Groups}
}

func toHistTransition(t core.Transition) histTransition {
	return histTransition{At: t.At, Group: t.Group, From: t.From, To: t.To, Reason: t.Reason}
}

func (h histTransition) core() core.Transition {
	return core.Transition{At: h.At, Group: h.Group, From: h.From, To: h.To, Reason: h.Reason}
}

func toHistMove(m core.WorkerMove) histMove {
	return histMove{At: m.At, Worker: m.Worker, From: m.From, To: m.To}
}

func (h histMove) core() core.WorkerMove {
	return core.WorkerMove{At: h.At, Worker: h.Worker, From: h.From, To: h.To}
}

// mapSlice converts a slice element by element, keeping nil as nil (so a
// list the core left nil is written as null, as version 1 wrote it).
func mapSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}
