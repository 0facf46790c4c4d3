package core

import (
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// maxSkips bounds how many queued attempts a pass looks past when the head
// does not fit, so a long queue of large attempts costs little per event.
const maxSkips = 16

// schedule places queued attempts on workers with room, group by group.
func (c *Core) schedule() {
	for _, g := range c.gorder {
		if g.queue.Len() > 0 && len(g.pnodes) > 0 {
			c.place(g)
		} else {
			g.reserveHeld = 0
		}
	}
}

// place starts queued attempts of g while the task order picks one and
// the allocator finds it a node. The order chooses the attempt, the
// allocator the node, under every task order: under ras too, so
// ebb.packing.scheme always holds.
func (c *Core) place(g *group) {
	o := c.opts.Tasks
	// The snapshot escapes through the TaskOrder interface: a value here
	// was a heap allocation per pass. The group's is reused, emptied (its
	// Heads buffer is the queue's, refilled below).
	snap := &g.snap
	*snap = scheduler.OrderSnapshot{}
	var demand map[*dagRun]*scheduler.RASDemand
	if o.ResourceAware() {
		c.rasCycle()
		snap.Plan = *c.rasPlan
		snap.Nodes = c.orderNodes(g)
		demand = rasDemand(g)
	}
	var heldBuf [maxSkips]*taskRun // the loop holds fewer than maxSkips
	held := heldBuf[:0]
	heads := c.newPassHeads(g, snap, demand)
	reserve, free := c.reserveMB(g)
	skipped := 0 // picks left to newcomers by the reserve; with held, at most maxSkips
	for g.queue.Len() > 0 && len(held)+skipped < maxSkips {
		pick, ok := o.Next(snap)
		if !ok {
			break
		}
		d := heads.dags[pick.Head]
		// drained: the reserve holds d back from the group's room, but a
		// draining worker whose scale-in waits for d has room, which no
		// newcomer could take: the attempt goes there and nowhere else.
		drained := false
		if mem := snap.Heads[pick.Head].MemoryMB; reserve > 0 && d.running > 0 && free-mem < reserve {
			if !c.drainRoomFor(g, d, mem) {
				heads.failed(pick.Head)
				skipped++
				continue
			}
			drained = true
		}
		t := c.popReady(g, d)
		if t == nil {
			heads.changed(pick.Head)
			continue
		}
		req := packing.Request{MemoryMB: t.memoryMB(), Waited: c.now.Sub(t.queuedAt), Preferred: pick.Preferred, ClusterNodes: c.clusterSize()}
		var w *workerRun
		var id string
		i := -1
		if c.mayFit(g, req.MemoryMB) {
			id = attemptID(t, int(t.attempts)-1) // the number maybeQueue counted
			req.Seed = seedOf(id)                // the allocator's tie-breaks, the same at every pass
			var ok bool
			if i, ok = c.choose(g, pick.Fits, d, req, drained); ok {
				w = g.bestWorker(i, req.MemoryMB, d)
			}
		}
		if w == nil { // no room (or the allocator's view disagrees: never place blindly)
			held = append(held, t)
			heads.failed(pick.Head)
			continue
		}
		a := c.newAttempt(t, id)
		c.start(a, w)
		if !w.draining { // the reserve counts the group's own room only
			free -= req.MemoryMB
		}
		if snap.Nodes != nil {
			c.startedOn(g, snap, i, a)
			rasStarted(demand[d], a.task.vertex)
		}
		heads.changed(pick.Head)
	}
	for _, t := range held {
		g.push(t)
	}
	g.reserveHeld = 0
	if skipped > 0 {
		g.reserveHeld = max(free, 0)
	}
}

// mayFit is false when no node of g has room for mem: no allocator can
// then choose one and bestWorker would find no worker, so the pass holds
// the attempt at once. A full group otherwise cost a Choose over every
// node for each of the pass's maxSkips failed picks, most of a pass's
// time at 10,000 workers. Nodes whose scale-in waits for a DAG widen the
// view for that DAG's attempts (drainingFor), beyond what g.fits
// counts: with any, the allocator is always asked.
func (c *Core) mayFit(g *group, mem int64) bool {
	return mem <= g.fits.max || len(c.waitingDrains) > 0
}

// choose asks the allocator for a node of g for req: through g's index
// when the view is g's own (no node ruled out by the task order, none
// widened for a draining node) and the index covers req, else by a scan of
// the view. Both give the same node (packing's TestSpreadIndexAgreesWithScan).
//
// drainedOnly limits the choice to the nodes whose scale-in waits for d.
func (c *Core) choose(g *group, fits []bool, d *dagRun, req packing.Request, drainedOnly bool) (int, bool) {
	if g.pix != nil && fits == nil && len(c.waitingDrains) == 0 && len(d.slowNodes) == 0 {
		if i, ok, covered := g.pix.Choose(req); covered {
			return i, ok
		}
	}
	view := c.drainingFor(g, allowedNodes(g.pnodes, fits), d)
	if drainedOnly {
		view = c.drainedOnly(view, d)
	}
	wait := req.Waited < c.opts.Speculation.SlowNodeWait
	i, ok := c.opts.Allocator.Choose(offSlowNodes(view, d, req.MemoryMB, wait), req)
	if !ok && !wait && len(d.slowNodes) > 0 { // room off the slow nodes the allocator would not take (other resource types)
		i, ok = c.opts.Allocator.Choose(view, req)
	}
	return i, ok
}

// allowedNodes is the allocator's view limited to the nodes where the task
// order lets the attempt go: the others are shown with no room (FitsMB -1
// fits nothing), so the allocator still sees the whole group, as its
// minimum-node rule expects.
func allowedNodes(nodes []packing.Node, fits []bool) []packing.Node {
	if fits == nil {
		return nodes
	}
	return hideNodes(nodes, func(i int) bool { return !fits[i] })
}

// hideNodes is a copy of nodes with those hide says shown with no room
// (FitsMB -1 fits nothing): the allocator still sees every node, as its
// minimum-node rule expects, and chooses among the rest. nodes is not
// changed.
func hideNodes(nodes []packing.Node, hide func(i int) bool) []packing.Node {
	out := make([]packing.Node, len(nodes))
	copy(out, nodes)
	for i := range out {
		if hide(i) {
			out[i].FitsMB = -1
		}
	}
	return out
}

// popReady takes d's next queued task, or nil when its inputs were lost
// after it was queued (then the task waits for them again).
func (c *Core) popReady(g *group, d *dagRun) *taskRun {
	t := g.queue.pop(d, c.nextIndex(d, g.queue.byDAG[d]))
	g.queuedMB -= t.memoryMB()
	if !c.canStart(t) || d.state != DAGRunning {
		t.becomeWaiting()
		return nil
	}
	return t
}

// newAttempt creates the record of the attempt a placed task runs: number
// t.attempts-1, counted when it was queued, named id.
func (c *Core) newAttempt(t *taskRun, id string) *attemptRun {
	a := &attemptRun{id: id, task: t, number: int(t.attempts) - 1, askMB: t.askMB}
	c.attempt[id] = a
	return a
}

// bestWorker is the group's worker on node i of g.pnodes with the least
// free memory that still fits an attempt of d (best fit keeps big holes
// for big attempts).
func (g *group) bestWorker(i int, mem int64, d *dagRun) *workerRun {
	var best *workerRun
	for _, w := range g.gnodes[i].workers {
		if !w.takes(d) || w.freeMB < mem {
			continue
		}
		if best == nil || w.freeMB < best.freeMB {
			best = w
		}
	}
	return best
}

// start assigns an attempt to a worker and tells the world.
func (c *Core) start(a *attemptRun, w *workerRun) {
	a.task.becomeRunning(a)
	c.occupy(a, w)
	// A pointer: as a value the action was copied into the interface and
	// out again in observe (RunAttempt is some 300 bytes).
	c.emit(&RunAttempt{Worker: w.info.ID, Attempt: c.attemptSpec(a), w: w, run: a})
}

// occupy puts a running attempt on worker w: its memory, counts and
// profile.
func (c *Core) occupy(a *attemptRun, w *workerRun) {
	t := a.task
	v := t.vertex
	d := v.dag
	mem := a.memoryMB()
	a.worker = w
	a.started = c.now
	a.profile = v.activeProfile()
	a.gathering = !t.ready()
	a.lastSeen = c.now
	w.running = append(w.running, a)
	w.freeMB -= mem
	w.node.usedMB += mem
	d.running++
	c.nodeUsageChanged(w.node) // w's group's view too: it has a worker there
}

func (c *Core) attemptSpec(a *attemptRun) AttemptSpec {
	t := a.task
	v := t.vertex
	d := v.dag
	env := map[string]string{}
	for k, x := range d.group.info.Env {
		env[k] = x
	}
	for k, x := range v.spec.Env {
		env[k] = x
	}
	if sio := d.spec.StreamIO(v.spec.Name); sio != nil {
		// A stream vertex's settings ride in the environment, which
		// reaches the worker unchanged in every world.
		env[dag.EnvStream] = sio.Encode()
	}
	s := AttemptSpec{
		ID:          a.id,
		DAGID:       d.id,
		DAGName:     d.spec.Name,
		Vertex:      v.spec.Name,
		Task:        t.index,
		Number:      a.number,
		Parallelism: len(v.tasks),
		Command:     v.spec.Command,
		Speculative: a.speculative,
		Env:         env,
		MemoryMB:    a.memoryMB(),
		VCores:      max(v.spec.VCores, 1),
	}
	for _, e := range v.out {
		s.Outputs = append(s.Outputs, OutputSpec{Consumer: e.other.spec.Name, Partitions: e.typ.Partitions(len(e.other.tasks))})
	}
	c.addInputs(&s, t)
	if sp := d.sub.Splits[v.spec.Name]; t.index < len(sp) {
		s.Splits = sp[t.index]
	}
	s.SplitsAsFiles = v.spec.InputMode == dag.InputFile
	if v.sink {
		s.CommitDir = d.commitDir(v)
		s.AskCommit = s.CommitDir != "" && v.speculative(c.opts.Speculation)
	}
	s.Profile = a.profile
	if s.Profile == nil {
		s.Profile = v.activeProfile()
	}
	a.gatherInputs(&s)
	if n := len(v.spec.SimDurations); n > 0 {
		s.SimDuration = v.spec.SimDurations[min(t.index, n-1)].D()
	}
	return s
}

// addInputs lists what an attempt of t fetches: one entry per producer
// task (one in all over a one-to-one edge), unless the world reads none.
func (c *Core) addInputs(s *AttemptSpec, t *taskRun) {
	v := t.vertex
	if c.opts.NoInputLists {
		return
	}
	if n := inputCount(v); n > 0 {
		s.Inputs = make([]InputFetch, 0, n) // one allocation, not log2(n) growths
	}
	for _, e := range v.in {
		p := e.other
		add := func(pt *taskRun, part int) {
			o := pt.output
			addr := ""
			if o != nil && o.worker != nil {
				addr = o.worker.info.Address
			}
			id := ""
			if o != nil {
				id = o.id
			}
			s.Inputs = append(s.Inputs, InputFetch{ProducerVertex: p.spec.Name, ProducerTask: pt.index,
				ProducerAttempt: id, Address: addr, Consumer: v.spec.Name, Partition: part})
		}
		switch e.typ {
		case 1: // one-to-one
			add(p.tasks[t.index], 0)
		case 2: // broadcast
			for _, pt := range p.tasks {
				add(pt, 0)
			}
		default: // scatter-gather
			for _, pt := range p.tasks {
				add(pt, t.index)
			}
		}
	}
}

// inputCount is how many inputs attemptSpec lists for a task of v: one
// per producer task, but one in all over a one-to-one edge.
func inputCount(v *vertexRun) int {
	n := 0
	for _, e := range v.in {
		if e.typ == 1 {
			n++
			continue
		}
		n += len(e.other.tasks)
	}
	return n
}

// activeProfile is the resource profile a new attempt of v runs with: a
// consumer's shuffle profile while its producers still run, its reduce
// profile after; else the vertex's profile.
func (v *vertexRun) activeProfile() *dag.Profile {
	sp := v.spec
	if sp.ShuffleProfile == nil && sp.ReduceProfile == nil {
		return sp.Profile
	}
	producing := false
	for _, e := range v.in {
		if e.other.succeeded < len(e.other.tasks) {
			producing = true
		}
	}
	if producing && sp.ShuffleProfile != nil {
		return sp.ShuffleProfile
	}
	if sp.ReduceProfile != nil {
		return sp.ReduceProfile
	}
	return sp.Profile
}
