package core

import (
	"sort"
	"time"
)

// The views below are read-only copies of the Core's state for the status
// UI and its JSON API: plain data, no pointers into the Core, so a handler
// may keep them after the loop has moved on. Nothing here changes state.

// DAGView is a DAG with its graph and every attempt the journal still holds.
type DAGView struct {
	DAGStatus
	Edges    []EdgeView
	Vertices []VertexView
	Attempts []AttemptRecord
}

// EdgeView is one edge of a DAG.
type EdgeView struct {
	From, To, Type string
}

// VertexView is a vertex's settings and task states. Commands and
// environments are left out on purpose: they may hold secrets.
type VertexView struct {
	VertexStatus
	MemoryMB int64
	VCores   int
	Queued   int
	Waiting  int
	Depth    int // longest path from a source, for drawing the graph in layers
}

// DAGView returns a DAG's graph, vertices and attempts; a compacted DAG's
// is its summary alone (DAGStatus.Compacted), the rest being in the AM's
// history.
func (c *Core) DAGView(id string) (DAGView, bool) {
	d, ok := c.dags[id]
	if !ok {
		s, ok := c.summary(id)
		return DAGView{DAGStatus: s}, ok
	}
	v := DAGView{DAGStatus: c.status(d)}
	for _, e := range d.spec.Edges {
		v.Edges = append(v.Edges, EdgeView{From: e.From, To: e.To, Type: e.Type.String()})
	}
	depth := map[string]int{}
	for _, vr := range d.vertices { // d.vertices is in topological order
		for _, in := range vr.in {
			depth[vr.spec.Name] = max(depth[vr.spec.Name], depth[in.other.spec.Name]+1)
		}
	}
	for i, vr := range d.vertices {
		vv := VertexView{VertexStatus: v.DAGStatus.Vertices[i], MemoryMB: vr.spec.MemoryMB, VCores: vr.spec.VCores, Depth: depth[vr.spec.Name]}
		for _, t := range vr.tasks {
			switch t.state {
			case taskQueued:
				vv.Queued++
			case taskWaiting:
				vv.Waiting++
			}
		}
		v.Vertices = append(v.Vertices, vv)
	}
	v.Attempts = c.Attempts(id)
	return v, true
}

// Attempts returns the journal's attempts of a DAG ("" = every DAG), in
// start order.
func (c *Core) Attempts(dagID string) []AttemptRecord {
	var out []AttemptRecord
	j := &c.journal
	for k := 0; k < j.n; k++ {
		r := &j.recs[(j.head+k)%len(j.recs)]
		if dagID == "" || r.DAG == dagID {
			out = append(out, *r)
		}
	}
	return out
}

// Attempt returns one attempt's record.
func (c *Core) Attempt(id string) (AttemptRecord, bool) {
	r := c.journal.record(c.journal.find(id))
	if r == nil {
		return AttemptRecord{}, false
	}
	return *r, true
}

// GroupView is a group with its autoscaler settings and usage history.
type GroupView struct {
	GroupStatus
	Kind          string
	MemoryMB      int64 // per worker
	SizedByEbb    bool  // its DAG left the worker size to ebb (scheduler.SizeWorker)
	VCores        int
	Autoscaled    bool
	OutThreshold  int // percent; 0 when not autoscaled
	InThreshold   int
	Wanted        int
	Draining      int
	DrainingNodes int
	Usage         []UsagePoint
}

// GroupViews returns every group with its last hour of usage.
func (c *Core) GroupViews() []GroupView {
	statuses := c.Groups()
	out := make([]GroupView, 0, len(statuses))
	for i, g := range c.gorder {
		v := GroupView{GroupStatus: statuses[i], Kind: kindOf(g), MemoryMB: g.info.MemoryMB, SizedByEbb: g.props.SizedByEbb, VCores: g.info.VCores,
			Wanted: g.wanted, Usage: append([]UsagePoint(nil), c.journal.usage[g.info.Name]...)}
		for w := range g.workers {
			if w.draining || w.stopping {
				v.Draining++
			}
		}
		for id := range g.byNode {
			if n := c.nodes[id]; n != nil && n.draining {
				v.DrainingNodes++
			}
		}
		if g.as != nil {
			cfg := g.as.a.Config()
			v.Autoscaled, v.OutThreshold, v.InThreshold = true, cfg.OutThresholdPercent, cfg.InThresholdPercent
		}
		out = append(out, v)
	}
	return out
}

// WorkerView is one worker as operators see it.
type WorkerView struct {
	ID          string
	Group       string
	Kind        string
	Node        string
	ContainerID string
	MemoryMB    int64 // offered to attempts
	UsedMB      int64 // by running attempts
	Running     []string
	// Outputs counts the finished outputs it holds per DAG id.
	Outputs   map[string]int
	Draining  bool
	Stopping  bool
	RecycleTo string
	LastSeen  time.Time
}

// Workers returns every registered worker by id.
func (c *Core) Workers() []WorkerView {
	out := make([]WorkerView, 0, len(c.workers))
	for _, id := range sortedKeys(c.workers) {
		w := c.workers[id]
		v := WorkerView{ID: id, Group: w.group.info.Name, Kind: kindOf(w.group), Node: w.node.id, ContainerID: w.info.ContainerID,
			MemoryMB: w.info.MemoryMB, UsedMB: w.info.MemoryMB - w.freeMB, Outputs: map[string]int{},
			Draining: w.draining, Stopping: w.stopping, LastSeen: w.lastSeen}
		for _, a := range w.running {
			v.Running = append(v.Running, a.id)
		}
		sort.Strings(v.Running)
		for d, n := range w.outputs {
			v.Outputs[d.id] = n
		}
		if w.recycleTo != nil {
			v.RecycleTo = w.recycleTo.info.Name
		}
		out = append(out, v)
	}
	return out
}

// NodeView is a node with both memory figures an operator compares.
type NodeView struct {
	NodeStatus
	// ContainerMB is the memory of this AM's worker containers on the node:
	// what YARN reports as allocated. UsedMB (NodeStatus) is the memory of
	// running attempts only: what ebb packs and autoscales on.
	ContainerMB int64
	Groups      []string
}

// NodeViews returns the nodes holding workers and those the cluster
// reports not RUNNING, by id.
func (c *Core) NodeViews() []NodeView {
	var out []NodeView
	for _, s := range c.Nodes() {
		v := NodeView{NodeStatus: s}
		seen := map[string]bool{}
		var ws map[*workerRun]struct{}
		if n := c.nodes[s.ID]; n != nil {
			ws = n.workers // nil for a node known only by its state
		}
		for w := range ws {
			v.ContainerMB += w.info.MemoryMB
			if !seen[w.group.info.Name] {
				seen[w.group.info.Name] = true
				v.Groups = append(v.Groups, w.group.info.Name)
			}
		}
		sort.Strings(v.Groups)
		out = append(out, v)
	}
	return out
}

// Moves returns the recent worker moves between groups, oldest first.
func (c *Core) Moves() []WorkerMove { return append([]WorkerMove(nil), c.journal.moves...) }

// usagePoint is a group's usage now, as the chart shows it.
func (c *Core) usagePoint(g *group) UsagePoint {
	p := UsagePoint{At: c.now, State: "STABLE", Wanted: g.wanted, Nodes: len(g.byNode), Queued: g.queue.Len()}
	for id := range g.byNode {
		if n := c.nodes[id]; n != nil && n.draining {
			p.DrainingNodes++
		}
	}
	var running, offered int64
	for w := range g.workers {
		if w.draining || w.stopping {
			p.Draining++
		} else {
			p.Running++
		}
		running += w.info.MemoryMB - w.freeMB
		offered += w.info.MemoryMB
	}
	if offered > 0 {
		p.InstantPercent = 100 * float64(running) / float64(offered)
	}
	p.UsagePercent = p.InstantPercent
	if g.as != nil {
		p.State = g.as.a.State().String()
		if u, ok := g.as.a.Usage(); ok {
			p.UsagePercent = u
		}
	}
	return p
}
