package ui

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/internal/rolllog"
	"github.com/ebb-am/ebb/packing"
)

// This file turns the core's views into the API's types.

// app is the header's application, with what the AM learned since the UI
// was built (Options.AppLate).
func (u *UI) app() AppInfo {
	a := u.o.App
	if u.o.AppLate != nil {
		u.o.AppLate(&a)
	}
	return a
}

func (u *UI) overview(v View) Overview {
	now := v.Now()
	o := Overview{App: u.app(), Now: now, DAGs: []DAG{}, Groups: []Group{}, Nodes: []Node{}, Transitions: []Transition{}, Moves: []Move{}}
	if !u.o.App.Started.IsZero() {
		end := now
		if !u.o.App.Finished.IsZero() {
			end = u.o.App.Finished
		}
		o.UptimeSecs = end.Sub(u.o.App.Started).Seconds()
	}
	for _, d := range v.DAGs() {
		o.DAGs = append(o.DAGs, u.dag(d, now))
	}
	var pending map[string]string
	if u.o.PendingReasons != nil {
		pending = u.o.PendingReasons()
	}
	for _, g := range v.GroupViews() {
		gr := group(g)
		gr.PendingReason = pending[g.Name]
		o.Groups = append(o.Groups, gr)
	}
	for _, n := range v.NodeViews() {
		o.Nodes = append(o.Nodes, u.node(n))
	}
	o.Transitions = transitions(v.Transitions(), "")
	o.Moves = moves(v.Moves(), "")
	return o
}

func (u *UI) dag(d core.DAGStatus, now time.Time) DAG {
	out := DAG{ID: d.ID, Name: d.Name, State: d.State.String(), Group: d.Group, Submitted: d.Submit,
		Tasks: d.TotalTasks, Succeeded: d.Succeeded, Running: d.Running, FailedAttempts: d.Failed,
		SReq: d.SReq, Utility: d.Utility, Slots: d.Slots, Diagnostics: u.redact(d.Diagnostics), Output: d.Output, Compacted: d.Compacted}
	out.Progress = d.Progress()
	out.SlowNodes = d.SlowNodes
	out.Counters = counters(d)
	if s := d.Speculation; s.Launched > 0 {
		out.Backups = &Backups{Launched: s.Launched, Won: s.Won, Lost: s.Lost}
	}
	if !d.Finish.IsZero() {
		f := d.Finish
		out.Finished = &f
	}
	if !d.Goal.IsZero() {
		g := d.Goal
		out.Goal = &g
		out.GoalStatus = goalStatus(d, out.Progress, now)
	}
	return out
}

// counters is a DAG's counters with each vertex's share.
func counters(d core.DAGStatus) []Counter {
	out := make([]Counter, 0, len(d.Counters))
	for _, c := range d.Counters {
		x := Counter{Group: c.Group, Name: c.Name, Value: c.Value}
		for _, v := range d.Vertices {
			for _, vc := range v.Counters {
				if vc.Group == c.Group && vc.Name == c.Name {
					if x.Vertices == nil {
						x.Vertices = map[string]int64{}
					}
					x.Vertices[v.Name] = vc.Value
				}
			}
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// goalStatus says whether a DAG meets its completion-time goal: for a
// running DAG, by projecting its progress so far at the same rate.
func goalStatus(d core.DAGStatus, progress float64, now time.Time) string {
	switch {
	case d.State.Done() && d.State == core.DAGSucceeded && !d.Finish.After(d.Goal):
		return "met"
	case d.State.Done():
		return "missed"
	case now.After(d.Goal):
		return "missed"
	case progress <= 0:
		return "starting"
	}
	elapsed := now.Sub(d.Submit)
	projected := d.Submit.Add(time.Duration(float64(elapsed) / progress))
	if projected.After(d.Goal) {
		return "at risk"
	}
	return "on track"
}

func (u *UI) dagDetail(v View, id string, f attemptFilter) (DAGDetail, bool) {
	dv, ok := v.DAGView(id)
	if !ok {
		return DAGDetail{}, false
	}
	out := DAGDetail{DAG: u.dag(dv.DAGStatus, v.Now()), Vertices: []Vertex{}, Edges: []Edge{}, Attempts: []Attempt{}}
	for _, vv := range dv.Vertices {
		out.Vertices = append(out.Vertices, Vertex{Name: vv.Name, Tasks: vv.Total, Succeeded: vv.Succeeded, Running: vv.Running,
			Queued: vv.Queued, Waiting: vv.Waiting, MemoryMB: vv.MemoryMB, Depth: vv.Depth})
	}
	for _, e := range dv.Edges {
		out.Edges = append(out.Edges, Edge(e))
	}
	recs := dv.Attempts
	if f.vertex != "" {
		recs = nil
		for _, a := range dv.Attempts {
			if a.Vertex == f.vertex {
				recs = append(recs, a)
			}
		}
	}
	out.AttemptsTotal = len(recs)
	if f.limit > 0 && len(recs) > f.limit {
		recs = recs[len(recs)-f.limit:]
	}
	for _, a := range recs {
		out.Attempts = append(out.Attempts, u.attemptAt(a, v.Now()))
	}
	return out, true
}

// attemptAt converts a record; a running attempt's duration runs to now.
func (u *UI) attemptAt(a core.AttemptRecord, now time.Time) Attempt {
	out := Attempt{ID: a.ID, Vertex: a.Vertex, Task: a.Task, Number: a.Number, MemoryMB: a.MemoryMB, State: a.State, Worker: a.Worker,
		Container: a.Container, Node: a.Node, Start: a.Start, ExitCode: a.ExitCode, Diagnostics: u.redact(a.Diagnostics), Status: u.redact(a.Status),
		Speculative: a.Speculative, Loser: a.Loser}
	end := now
	if !a.End.IsZero() {
		e := a.End
		out.End, end = &e, e
	}
	if !end.IsZero() && end.After(a.Start) {
		out.DurationSecs = end.Sub(a.Start).Seconds()
	}
	if a.Container != "" {
		out.Logs = map[string]string{
			"stdout": u.logURL(a.Node, a.Container, a.ID+".stdout"),
			"stderr": u.logURL(a.Node, a.Container, a.ID+".stderr"),
			"worker": u.logURL(a.Node, a.Container, workerLogFile),
		}
	}
	return out
}

// logURL links a container's log file: the NodeManager's container-log
// page on YARN, the UI's own logs/ route in the local world (relative to
// the UI's root; pages prefix it).
func (u *UI) logURL(node, container, file string) string {
	if u.o.NodeLogURL != nil {
		return u.o.NodeLogURL(node, container, file)
	}
	if u.o.LocalLogDir != "" {
		return "logs/" + url.PathEscape(container) + "/" + url.PathEscape(file)
	}
	return ""
}

func group(g core.GroupView) Group {
	return Group{Name: g.Name, Kind: g.Kind, State: g.State, Autoscaled: g.Autoscaled, UsagePercent: g.UsagePercent,
		OutThreshold: g.OutThreshold, InThreshold: g.InThreshold, WorkersWanted: g.Wanted, Workers: g.Workers,
		WorkersPending: g.PendingWorkers, WorkersDraining: g.Draining, Nodes: g.Nodes, NodesDraining: g.DrainingNodes,
		QueuedAttempts: g.QueuedAttempts, RunningAttempts: g.RunningAttempts, TaskMB: g.RunningMB, OfferedMB: g.OfferedMB,
		WorkerMemoryMB: g.MemoryMB, SizedByEbb: g.SizedByEbb,
		PreemptWarned: g.Preempt.Warned, PreemptGivenBack: g.Preempt.GivenBack, PreemptLost: g.Preempt.Lost, PreemptEvicted: g.Preempt.Evicted,
		SlowStartKilled: g.Preempt.SlowStartKilled, TargetP95: g.TargetP95, MeasuredP95: g.MeasuredP95, MeasuredDAGs: g.MeasuredDAGs}
}

func (u *UI) groupDetail(v View, name string) (GroupDetail, bool) {
	for _, g := range v.GroupViews() {
		if g.Name == name {
			usage := g.Usage
			if usage == nil {
				usage = []core.UsagePoint{}
			}
			return GroupDetail{Group: group(g), Usage: usage, Transitions: transitions(v.Transitions(), name), Moves: moves(v.Moves(), name)}, true
		}
	}
	return GroupDetail{}, false
}

func (u *UI) node(n core.NodeView) Node {
	groups := n.Groups
	if groups == nil {
		groups = []string{}
	}
	out := Node{ID: n.ID, CapacityMB: n.CapacityMB, ContainerMB: n.ContainerMB, TaskMB: n.UsedMB,
		Packing: packing.BandOf(n.UsedMB, n.CapacityMB, u.o.PackingHighPercent).String(), Workers: n.Workers, Draining: n.Draining, Groups: groups,
		State: n.State.String()}
	if !n.DrainBy.IsZero() {
		by := n.DrainBy
		out.DrainBy = &by
	}
	return out
}

func (u *UI) workers(v View) []Worker {
	out := []Worker{}
	for _, w := range v.Workers() {
		running := w.Running
		if running == nil {
			running = []string{}
		}
		out = append(out, Worker{ID: w.ID, Group: w.Group, Kind: w.Kind, Node: w.Node, Container: w.ContainerID,
			MemoryMB: w.MemoryMB, TaskMB: w.UsedMB, Running: running, Outputs: w.Outputs, Draining: w.Draining,
			Stopping: w.Stopping, RecycleTo: w.RecycleTo, WorkerLog: u.logURL(w.Node, w.ContainerID, workerLogFile)})
	}
	return out
}

func transitions(ts []core.Transition, group string) []Transition {
	out := []Transition{}
	for _, t := range ts {
		if group == "" || t.Group == group {
			out = append(out, Transition(t))
		}
	}
	return out
}

func moves(ms []core.WorkerMove, group string) []Move {
	out := []Move{}
	for _, m := range ms {
		if group == "" || m.From == group || m.To == group {
			out = append(out, Move(m))
		}
	}
	return out
}

// redact removes the application secret from text that came from outside
// ebb (a task's stderr tail, a log file): a task may print anything.
func (u *UI) redact(s string) string {
	if u.o.Secret == "" {
		return s
	}
	return strings.ReplaceAll(s, u.o.Secret, "[redacted]")
}

// writeBody sends a rendered response. A client that went away mid-response
// is not the AM's problem and the status is already sent: drop it.
func writeBody(w http.ResponseWriter, body []byte) {
	_, _ = w.Write(body) // the reader hung up; nothing to report to it
}

// workerLogFile is a worker's own log, in its container's log directory
// (YARN's; the local world's): the file being written, not its rolled
// pieces. Its stderr holds only its warnings and errors.
const workerLogFile = rolllog.WorkerFile
