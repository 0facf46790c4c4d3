package core

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// drainState is why and until when a node's workers take no new work.
type drainState struct {
	since  time.Time
	reason string
	// waitFor: DAGs that were active when the drain began; with
	// mr3.auto.scale.in.wait.dag.finished the workers keep serving (and
	// may finish attempts) until all of them have ended.
	waitFor map[*dagRun]struct{}
	// byState: the cluster's report of the node caused the drain, so its
	// report of RUNNING again lifts it (nodestate.go).
	byState bool
}

// DrainNode stops new work on a node and stops its workers as soon as
// they hold nothing a running DAG needs: no running attempt, no output a
// running DAG may still read, and (waitDAGs) every DAG active now ended.
// A drained node is never given new workers; the world releases it when
// its last worker is gone.
func (c *Core) DrainNode(now time.Time, node, reason string, waitDAGs bool) {
	c.advance(now)
	n, ok := c.nodes[node]
	if !ok || n.draining {
		return
	}
	n.draining = true
	c.ndraining++
	ds := &drainState{since: c.now, reason: reason}
	if waitDAGs {
		ds.waitFor = map[*dagRun]struct{}{}
		for _, d := range c.active {
			ds.waitFor[d] = struct{}{}
		}
		if len(ds.waitFor) > 0 {
			c.waitingDrains[n] = struct{}{}
		}
	}
	n.drain = ds
	for w := range n.workers {
		w.group.markDraining(w)
		// Tell its group's total again even if it stays the same (a group
		// at its maximum): the world learns the node drains, and stops
		// counting the worker.
		w.group.wanted = -1
	}
	c.logf("node %s draining: %s", node, reason)
	c.stopDrained()
	c.updateWanted()
}

// stopDrained stops draining workers that hold nothing needed any more.
func (c *Core) stopDrained() {
	if c.ndraining == 0 {
		return
	}
	var ids []string
	for id, n := range c.nodes {
		if n.draining {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		n := c.nodes[id]
		for d := range n.drain.waitFor {
			if d.state.Done() {
				delete(n.drain.waitFor, d)
			}
		}
		if len(n.drain.waitFor) > 0 {
			continue
		}
		delete(c.waitingDrains, n)
		var ws []*workerRun
		for w := range n.workers {
			if !w.stopping && w.idle() {
				ws = append(ws, w)
			}
		}
		sort.Slice(ws, func(i, j int) bool { return ws[i].info.ID < ws[j].info.ID })
		for _, w := range ws {
			c.stopWorker(w, fmt.Sprintf("node %s drained (%s)", id, n.drain.reason))
		}
	}
}

// drainingNodes lists the nodes whose workers are leaving (WantWorkers'
// Draining): the Core counts none of their workers live, and the world
// must not count them either.
func (c *Core) drainingNodes() []string {
	if c.ndraining == 0 {
		return nil
	}
	out := make([]string, 0, c.ndraining)
	for id, n := range c.nodes {
		if n.draining {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// closedNodes lists nodes the world must not put new workers on:
// draining, blacklisted and not RUNNING (nodestate.go) ones.
func (c *Core) closedNodes() []string {
	out := c.drainingNodes()
	for id := range c.blacklist {
		if n := c.nodes[id]; n == nil || !n.draining {
			out = append(out, id)
		}
	}
	for _, id := range c.unusableNodes() {
		_, black := c.blacklist[id]
		if n := c.nodes[id]; !black && (n == nil || !n.draining) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// avoidNodes lists nodes the world must not put new workers on: the
// draining ones and the slow nodes of DAGs asking for a backup's room.
func (c *Core) avoidNodes() []string {
	out := c.closedNodes()
	if len(c.backupAvoid) == 0 {
		return out
	}
	out = append(out, c.backupAvoid...)
	sort.Strings(out)
	return slices.Compact(out)
}

// takes reports whether w may be given an attempt of d. A draining worker
// takes none, except on a node whose scale-in waits for the DAGs active
// when it began (mr3.auto.scale.in.wait.dag.finished): it keeps running
// their attempts, and only theirs, until they end (DESIGN.md, Scale-in).
func (w *workerRun) takes(d *dagRun) bool {
	if !w.draining {
		return true
	}
	return !w.stopping && w.recycleTo == nil && w.node.waitsFor(d)
}

// waitsFor reports whether n is draining in a scale-in that waits for d.
func (n *nodeRun) waitsFor(d *dagRun) bool {
	if n == nil || n.drain == nil {
		return false
	}
	_, ok := n.drain.waitFor[d]
	return ok
}

// drainingFor is the allocator's view for an attempt of d: nodes whose
// scale-in waits for d count their draining workers' room, which the
// group's shared view leaves out. Without such a node the view is
// returned as it is.
func (c *Core) drainingFor(g *group, nodes []packing.Node, d *dagRun) []packing.Node {
	if len(c.waitingDrains) == 0 {
		return nodes
	}
	var out []packing.Node
	for i, pn := range nodes {
		if pn.FitsMB < 0 || !c.nodes[pn.ID].waitsFor(d) {
			continue
		}
		fits := pn.FitsMB
		for _, w := range g.workersOn(pn.ID) {
			if w.takes(d) && w.freeMB > fits {
				fits = w.freeMB
			}
		}
		if fits != pn.FitsMB {
			if out == nil {
				out = append([]packing.Node(nil), nodes...)
			}
			out[i].FitsMB = fits
		}
	}
	if out == nil {
		return nodes
	}
	return out
}

// drainRoomFor reports whether a draining worker of g whose scale-in
// waits for d has room for mem.
func (c *Core) drainRoomFor(g *group, d *dagRun, mem int64) bool {
	for n := range c.waitingDrains {
		if !n.waitsFor(d) {
			continue
		}
		for _, w := range g.workersOn(n.id) {
			if w.takes(d) && w.freeMB >= mem {
				return true
			}
		}
	}
	return false
}

// drainedOnly is view with every node but those whose scale-in waits for
// d shown full (FitsMB -1), so the allocator chooses among those alone.
func (c *Core) drainedOnly(view []packing.Node, d *dagRun) []packing.Node {
	return hideNodes(view, func(i int) bool { return !c.nodes[view[i].ID].waitsFor(d) })
}
