package core

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// SubmitError is a DAG the Core refuses (e.g. its ContainerGroup conflicts
// with a group of the same name already in use).
type SubmitError struct {
	DAG string
	Err error
}

func (e *SubmitError) Error() string { return fmt.Sprintf("DAG %s rejected: %v", e.DAG, e.Err) }
func (e *SubmitError) Unwrap() error { return e.Err }

// NextDAGID is the id the next DAG that SubmitDAG accepts will get.
func (c *Core) NextDAGID() string { return c.dagID(c.dagSeq + 1) }

func (c *Core) dagID(n int) string { return fmt.Sprintf("%sdag_%04d", c.opts.IDPrefix, n) }

// SubmitDAG accepts a validated DAG. It is either finished or reported
// failed later; it is never dropped.
func (c *Core) SubmitDAG(now time.Time, s Submission) (string, error) {
	c.advance(now)
	g, err := c.groupFor(s.Spec)
	if err != nil {
		return "", &SubmitError{DAG: s.Spec.Name, Err: err}
	}
	c.seq++
	c.dagSeq++
	d := &dagRun{
		id:     c.dagID(c.dagSeq),
		seq:    c.seq,
		spec:   s.Spec,
		sub:    s,
		submit: c.now,
		group:  g,
		byName: map[string]*vertexRun{},
		ramp:   s.Spec.Scaling,
	}
	c.expand(d)
	g.owners[d] = struct{}{}
	c.dags[d.id] = d
	c.active = append(c.active, d)
	c.logf("DAG %s (%s) submitted: %d vertices, %d tasks, group %s", d.id, d.spec.Name, len(d.vertices), d.pending, g.info.Name)
	c.considerUber(d)
	c.admit()
	c.schedule()
	c.updateWanted()
	return d.id, nil
}

// expand builds vertices and tasks from the spec.
func (c *Core) expand(d *dagRun) {
	for i := range d.spec.Vertices {
		vs := &d.spec.Vertices[i]
		v := &vertexRun{dag: d, spec: vs}
		// One allocation for the vertex's tasks, not one per task: a DAG
		// of a million tasks was a million objects to allocate and mark.
		v.tasks = make([]*taskRun, vs.Parallelism)
		runs := make([]taskRun, vs.Parallelism)
		for t := range v.tasks {
			runs[t] = taskRun{vertex: v, index: t}
			v.tasks[t] = &runs[t]
		}
		d.vertices = append(d.vertices, v)
		d.byName[vs.Name] = v
		d.pending += vs.Parallelism
	}
	d.byTopo = make([]*vertexRun, len(d.vertices))
	for pos, i := range d.spec.Topo() {
		d.vertices[i].topo = pos
		d.byTopo[pos] = d.vertices[i]
	}
	for _, e := range d.spec.Edges {
		from, to := d.byName[e.From], d.byName[e.To]
		from.out = append(from.out, edgeRef{typ: e.Type, other: to})
		to.in = append(to.in, edgeRef{typ: e.Type, other: from})
	}
	sinks := 0
	for _, v := range d.vertices {
		if len(v.out) == 0 {
			v.sink = true
			sinks++
		}
	}
	_ = sinks
}

// commitDir is where a sink vertex's files go: the DAG's output (or its
// staging directory, when the AM stages results) itself when it has one
// sink, else a subdirectory per sink vertex.
func (d *dagRun) commitDir(v *vertexRun) string {
	root := d.sub.Output
	if d.sub.Staging != "" {
		root = d.sub.Staging
	}
	if root == "" {
		return ""
	}
	n := 0
	for _, x := range d.vertices {
		if x.sink {
			n++
		}
	}
	if n == 1 {
		return root
	}
	if strings.Contains(root, "://") {
		return strings.TrimSuffix(root, "/") + "/" + v.spec.Name
	}
	return path.Join(root, v.spec.Name)
}

// admit starts waiting DAGs while there are concurrency slots.
func (c *Core) admit() {
	running := 0
	for _, d := range c.active {
		if d.state == DAGRunning {
			running++
		}
	}
	for _, d := range c.active {
		if running >= c.opts.MaxConcurrentDAGs {
			return
		}
		if d.state != DAGSubmitted || d.recovering {
			continue
		}
		d.becomeRunning(c.now)
		running++
		for _, v := range d.vertices {
			for _, t := range v.tasks {
				c.maybeQueue(t)
			}
		}
	}
}

// KillDAG ends a DAG as KILLED.
func (c *Core) KillDAG(now time.Time, id, reason string) error {
	c.advance(now)
	d, ok := c.dags[id]
	if _, compacted := c.summaries.byID[id]; compacted {
		return nil // it ended long ago
	}
	if !ok {
		return fmt.Errorf("no DAG %q", id)
	}
	if d.state.Done() {
		return nil
	}
	if reason == "" {
		reason = "killed by client"
	}
	c.endDAG(d, DAGKilled, reason)
	c.schedule()
	c.updateWanted()
	return nil
}

// FailDAG ends a DAG as FAILED for a reason the world found (e.g. its
// workers are larger than any container the cluster can give).
func (c *Core) FailDAG(now time.Time, id, reason string) error {
	c.advance(now)
	d, ok := c.dags[id]
	if _, compacted := c.summaries.byID[id]; compacted {
		return nil // it ended long ago
	}
	if !ok {
		return fmt.Errorf("no DAG %q", id)
	}
	if d.state.Done() {
		return nil
	}
	c.endDAG(d, DAGFailed, reason)
	c.schedule()
	c.updateWanted()
	return nil
}

// endDAG finishes a DAG: kills its attempts, tells workers to drop its
// outputs, and releases its hold on the group.
func (c *Core) endDAG(d *dagRun, st DAGState, diag string) {
	d.becomeEnded(st, diag, c.now)
	c.observeSlowdown(d)
	holders := map[*workerRun]struct{}{}
	for _, v := range d.vertices {
		for _, t := range v.tasks {
			for _, a := range []*attemptRun{t.current, t.backup} {
				if a == nil {
					continue
				}
				if a.worker != nil {
					c.emit(KillAttempt{Worker: a.worker.info.ID, AttemptID: a.id, Reason: fmt.Sprintf("DAG %s %s", d.id, st)})
					c.detach(a)
				}
				delete(c.attempt, a.id)
			}
			t.current, t.backup = nil, nil
		}
	}
	d.group.dropQueued(d)
	for _, w := range c.workers {
		if _, ok := w.outputs[d]; ok {
			holders[w] = struct{}{}
			delete(w.outputs, d)
			if w.idle() {
				w.idleFrom = c.now
			}
		}
	}
	var ws []string
	for w := range holders {
		ws = append(ws, w.info.ID)
	}
	sort.Strings(ws)
	for i, x := range c.active {
		if x == d {
			c.active = append(c.active[:i], c.active[i+1:]...)
			break
		}
	}
	delete(d.group.owners, d)
	c.ended = append(c.ended, d)
	if st == DAGSucceeded {
		c.logf("DAG %s (%s) %s in %s", d.id, d.spec.Name, st, d.finish.Sub(d.submit).Round(time.Millisecond))
	} else {
		c.warnf("DAG %s (%s) %s: %s", d.id, d.spec.Name, st, diag)
	}
	c.emit(DAGEnded{DAG: c.status(d), Workers: ws})
	c.retain()
	// A scale-in that waited for this DAG may now stop its workers.
	if len(c.waitingDrains) > 0 {
		c.stopDrained()
	}
	c.admit()
}

// FailGroup fails every DAG still running in a group, with the reason: a
// world tells the Core that no container or node can ever hold the
// group's workers, so its DAGs would otherwise wait for ever.
func (c *Core) FailGroup(now time.Time, group, reason string) {
	c.advance(now)
	for _, d := range append([]*dagRun(nil), c.active...) {
		if d.group.info.Name == group && !d.state.Done() {
			c.endDAG(d, DAGFailed, reason)
		}
	}
	c.schedule()
	c.updateWanted()
}
