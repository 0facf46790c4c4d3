package core

import "time"

// Query is a read-only question to the Core, answered on the loop with a
// copy (R holds no pointer into the Core). The set is closed: the queries
// are the types below, and Answer is the one way to ask.
type Query[R any] interface{ answer(c *Core) R }

// Answer answers q. Nothing changes in the Core.
func Answer[R any](c *Core, q Query[R]) R { return q.answer(c) }

// DAGQuery asks for one DAG's status.
type DAGQuery struct{ ID string }

// DAGAnswer is a DAG's status; Known is false for a DAG the Core never
// had (or has forgotten).
type DAGAnswer struct {
	Status DAGStatus
	Known  bool
}

func (q DAGQuery) answer(c *Core) DAGAnswer {
	s, ok := c.DAG(q.ID)
	return DAGAnswer{Status: s, Known: ok}
}

// DAGsQuery asks for every DAG the Core knows (Core.DAGs).
type DAGsQuery struct{}

func (DAGsQuery) answer(c *Core) []DAGStatus { return c.DAGs() }

// DAGViewQuery asks for one DAG's detail (Core.DAGView).
type DAGViewQuery struct{ ID string }

// DAGViewAnswer is a DAG's detail; Known as in DAGAnswer.
type DAGViewAnswer struct {
	View  DAGView
	Known bool
}

func (q DAGViewQuery) answer(c *Core) DAGViewAnswer {
	v, ok := c.DAGView(q.ID)
	return DAGViewAnswer{View: v, Known: ok}
}

// ClusterQuery asks for the groups, nodes and recent autoscaler
// transitions (what `ebb status` shows).
type ClusterQuery struct{}

// ClusterAnswer answers ClusterQuery.
type ClusterAnswer struct {
	Groups      []GroupStatus
	Nodes       []NodeStatus
	Transitions []Transition
}

func (ClusterQuery) answer(c *Core) ClusterAnswer {
	return ClusterAnswer{Groups: c.Groups(), Nodes: c.Nodes(), Transitions: c.Transitions()}
}

// NextDAGIDQuery asks for the id the next accepted DAG will get.
type NextDAGIDQuery struct{}

func (NextDAGIDQuery) answer(c *Core) string { return c.NextDAGID() }

// ActivityQuery asks whether the session has work (the session-idle
// policy): Busy when a DAG has not ended, else LastFinish is when the
// latest one did (zero when none has).
type ActivityQuery struct{}

// Activity answers ActivityQuery.
type Activity struct {
	Busy       bool
	LastFinish time.Time
}

func (ActivityQuery) answer(c *Core) Activity {
	var a Activity
	for _, d := range c.DAGs() {
		if !d.State.Done() {
			a.Busy = true
		} else if d.Finish.After(a.LastFinish) {
			a.LastFinish = d.Finish
		}
	}
	return a
}

// Summary is what a world hears with each tick: the tasks done and in
// all over the DAGs that have not ended (the YARN world's progress).
type Summary struct {
	DoneTasks, TotalTasks int
}

// Summary sums the unfinished DAGs' tasks: O(active DAGs), cheap enough
// for every tick.
func (c *Core) Summary() Summary {
	var s Summary
	for _, d := range c.active {
		if d.state.Done() {
			continue
		}
		for _, v := range d.vertices {
			s.DoneTasks += v.succeeded
			s.TotalTasks += len(v.tasks)
		}
	}
	return s
}
