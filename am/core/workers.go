package core

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// WorkerRegistered adds a worker that has started and connected.
func (c *Core) WorkerRegistered(now time.Time, info WorkerInfo) error {
	c.advance(now)
	if _, dup := c.workers[info.ID]; dup {
		return fmt.Errorf("worker %s is already registered", info.ID)
	}
	if err := c.fencedRegistration(info.ID); err != nil {
		return err
	}
	g, ok := c.groups[info.Group]
	if !ok {
		return fmt.Errorf("worker %s names unknown group %q", info.ID, info.Group)
	}
	n, ok := c.nodes[info.Node]
	if !ok {
		capMB := info.NodeMB
		if capMB <= 0 {
			capMB = info.MemoryMB
		}
		n = &nodeRun{id: info.Node, capacityMB: capMB, workers: map[*workerRun]struct{}{}}
		c.nodes[info.Node] = n
	}
	c.noteNodeSeen(info.Node)
	w := &workerRun{
		info:     info,
		group:    g,
		node:     n,
		freeMB:   info.MemoryMB,
		outputs:  map[*dagRun]int{},
		lastSeen: c.now,
		idleFrom: c.now,
		draining: n.draining,
	}
	c.workers[info.ID] = w
	n.workers[w] = struct{}{}
	g.addWorker(w)
	if g.warmSince.IsZero() {
		g.warmSince = c.now
	}
	if c.isAMWorker(info.ID) {
		c.amWorkerRegistered(w)
	}
	g.askArrived(info.Node)
	c.logf("worker %s registered: group %s, node %s, %d MB", info.ID, g.info.Name, info.Node, info.MemoryMB)
	c.recoveredWorker(w)
	if why, ok := c.blacklist[info.Node]; ok && !n.draining {
		// The cluster placed it before it learned of the blacklist.
		c.DrainNode(now, info.Node, why, false)
	}
	// Placed before the cluster's report of the node's state reached us.
	c.drainForState(info.Node)
	c.schedule()
	c.updateWanted()
	return nil
}

// WorkerHeartbeat notes that a worker is alive and that the attempts it
// lists still run there. An attempt a heartbeat lists counts as reported:
// the task timeout (as Tez's and MR3's) fails attempts nobody speaks for —
// a RunAttempt the worker never got, a worker that lost track of one — not
// a long task that writes no progress (the progress file is optional).
func (c *Core) WorkerHeartbeat(now time.Time, id string, running ...string) {
	c.advance(now)
	w, ok := c.workers[id]
	if !ok {
		return
	}
	w.lastSeen = c.now
	for _, aid := range running {
		if a, ok := c.attempt[aid]; ok && a.worker == w {
			a.lastSeen = c.now
		}
	}
}

// WorkerLost removes a worker that exited, was stopped or went silent. Its
// running attempts are queued again (not counted as task failures: the
// container, not the task, failed) and the outputs it held that running
// DAGs still need are recomputed.
func (c *Core) WorkerLost(now time.Time, id, reason string) {
	c.advance(now)
	if c.isAMWorker(id) {
		// Before the worker's own removal, which asks the world for what
		// its DAGs still need: they no longer wait for it.
		c.amWorkerGone(fmt.Sprintf("worker %s: %s", id, reason))
	}
	w, ok := c.workers[id]
	if !ok {
		c.updateWanted()
		return
	}
	if !w.stopping {
		c.warnf("worker %s lost (%s): %d attempts to re-run, outputs of %d DAGs to recompute", id, reason, len(w.running), len(w.outputs))
	}
	c.journal.workerLost(c.now, id, reason)
	c.noteLost(id, reason)
	for _, a := range slices.Clone(w.running) { // dropAttempt takes a off the list
		if !c.dropAttempt(a) {
			c.maybeQueue(a.task)
		}
	}
	for _, d := range c.active {
		for _, v := range d.vertices {
			for _, t := range v.tasks {
				if t.output != nil && t.output.worker == w {
					c.loseOutput(t)
				}
			}
		}
	}
	if w.recycleTo != nil {
		w.recycleTo.incoming--
		w.recycleTo = nil
	}
	w.group.removeWorker(w)
	delete(w.node.workers, w)
	delete(c.workers, id)
	w.gone = true
	if len(w.node.workers) == 0 {
		if w.node.draining {
			c.ndraining--
		}
		delete(c.nodes, w.node.id)
		delete(c.waitingDrains, w.node)
	}
	c.schedule()
	c.updateWanted()
}

// StopWorkerGracefully marks a worker to take no new attempts and asks it
// to stop once it holds nothing a running DAG needs.
func (c *Core) stopWorker(w *workerRun, reason string) {
	if w.stopping {
		return
	}
	w.stopping = true
	w.group.markDraining(w)
	w.group.wanted = -1 // always tell the world the new total after a stop
	c.emit(StopWorker{Worker: w.info.ID, Graceful: true, Reason: reason})
}

// checkTimeouts loses silent workers and fails attempts that stopped
// reporting. Only the expired ones are sorted (for a deterministic order),
// so a tick costs one pass over the maps.
func (c *Core) checkTimeouts() {
	var lost []string
	for id, w := range c.workers {
		if c.now.Sub(w.lastSeen) > c.opts.WorkerTimeout {
			lost = append(lost, id)
		}
	}
	sort.Strings(lost)
	for _, id := range lost {
		if w, ok := c.workers[id]; ok {
			c.loseSilent(w)
		}
	}
	if !c.now.After(c.quietUntil) {
		return
	}
	var silent []string
	oldest := c.now
	for id, a := range c.attempt {
		// A consumer gathering its inputs under slow start waits for
		// producers, which have their own timeouts.
		if a.worker == nil || a.gathering {
			continue
		}
		// An attempt whose worker is as silent is the worker's loss, not
		// the task's failure: the worker timeout decides (loseSilent).
		if c.now.Sub(a.lastSeen) > c.opts.TaskTimeout && c.now.Sub(a.worker.lastSeen) <= c.opts.TaskTimeout {
			silent = append(silent, id)
		}
		if a.lastSeen.Before(oldest) {
			oldest = a.lastSeen
		}
	}
	// Every lastSeen is set to c.now, which never goes back, so none of
	// today's or later attempts can be silent before the oldest counted
	// here times out: ticks until then need not look (a sweep over every
	// attempt, queued ones too, each tick was most of a long sim run).
	c.quietUntil = oldest.Add(c.opts.TaskTimeout)
	sort.Strings(silent)
	for _, id := range silent {
		a, ok := c.attempt[id]
		if !ok || a.worker == nil {
			continue
		}
		c.emit(KillAttempt{Worker: a.worker.info.ID, AttemptID: a.id, Reason: "no progress report"})
		c.AttemptUpdate(c.now, AttemptUpdate{AttemptID: a.id, Result: AttemptFailed,
			Diagnostics: fmt.Sprintf("no report for %s (mr3.heartbeat.task.timeout.ms)", c.opts.TaskTimeout)})
	}
}

// loseSilent gives up on a worker that sent nothing for the worker
// timeout (mr3.heartbeat.container.timeout.ms) though its stream may still
// be open: a wedged process (issue 24). It is told to stop at once and its
// container goes back (StopWorker, before the loss, so the executor still
// knows it); its attempts run again elsewhere and its outputs are
// recomputed, none counted as a task failure (WorkerLost), as for a lost
// container.
func (c *Core) loseSilent(w *workerRun) {
	reason := fmt.Sprintf("no heartbeat for %s (mr3.heartbeat.container.timeout.ms)", c.now.Sub(w.lastSeen).Round(time.Second))
	c.emit(StopWorker{Worker: w.info.ID, Graceful: false, Reason: reason})
	// A worker cut off from the AM may yet be reported by the cluster as
	// evicted (its node unreachable) or preempted (lostcause.go).
	c.keepUnexplained(w)
	c.WorkerLost(c.now, w.info.ID, reason)
}

// reapIdle stops workers that have been idle longer than the idle timeout
// while their group has nothing queued, except those an autoscaler's warm
// headroom keeps (ebb.auto.scale.headroom.window.secs): the longest idle
// go first.
func (c *Core) reapIdle() {
	var idle []*workerRun
	for _, w := range c.workers {
		if !w.stopping && w.idle() && w.group.queue.Len() == 0 && c.now.Sub(w.idleFrom) >= c.opts.IdleTimeout {
			idle = append(idle, w)
		}
	}
	sort.Slice(idle, func(i, j int) bool {
		if !idle[i].idleFrom.Equal(idle[j].idleFrom) {
			return idle[i].idleFrom.Before(idle[j].idleFrom)
		}
		return idle[i].info.ID < idle[j].info.ID
	})
	spare := map[*group]int{}
	for _, w := range idle {
		g := w.group
		n, seen := spare[g]
		if !seen {
			n = len(g.workers) - g.unavail
			if g.as != nil {
				n -= g.as.a.KeepWarm(g.info.MemoryMB)
			}
		}
		if n <= 0 {
			spare[g] = 0
			continue
		}
		spare[g] = n - 1
		c.stopWorker(w, fmt.Sprintf("idle for %s", c.now.Sub(w.idleFrom).Round(time.Second)))
	}
}

// updateWanted tells the world how many workers each group wants: its
// live workers plus enough for the queued attempts that found no room
// (when autoscaling is off; the autoscaler owns this decision otherwise).
func (c *Core) updateWanted() {
	if c.opts.Recycle.Recycles() {
		// A free worker of the kind is better than a new container: move
		// it first, then ask the cluster only for what is still missing.
		c.recycle()
		c.schedule()
	}
	budgetMB := c.preempt.headroomMB // shared by the groups (preemptCap)
	for _, g := range c.gorder {
		live := len(g.workers) - g.unavail
		want := live
		switch c.opts.Scaling {
		case ScaleSparkDA:
			want = c.wantSparkDA(g, live)
		case ScaleAutoscaler:
			// The autoscaler's target; never below the live workers (it
			// stops workers by draining nodes, not by lowering the total).
			if g.as != nil {
				want = max(live, g.as.target)
			}
		default:
			want = g.demand(live)
		}
		if g.uberOnly() {
			// Its DAGs wait for the in-AM worker (uber.go).
			want = live
		}
		// Workers on their way from another group count as coming.
		want = max(live, want-g.incoming)
		if g.maxW > 0 && want > g.maxW {
			want = g.maxW
		}
		if m := c.opts.MaxPendingRequests; m > 0 && want-live > m {
			want = live + m // the rest is asked for as these arrive
		}
		want = c.preemptCap(g, live, want, &budgetMB)
		g.pending = max(0, want-live)
		// The world holds no container for the in-AM worker.
		want -= c.amWorkersIn(g)
		if want != g.wanted || g.replan {
			g.wanted, g.replan = want, false
			c.emit(WantWorkers{Group: g.info, Total: want, Prefer: c.planAsks(g, g.pending), Avoid: c.avoidNodes(), Draining: c.drainingNodes()})
		}
	}
}

// preferNodes says where n new workers of g should go when packing: the
// allocator's choice among the nodes this AM already uses (their usage is
// the memory of its workers there and of others' containers as last
// reported, the AM's own among them), so that in the yarn world ebb asks
// for containers on medium nodes instead of letting the ResourceManager
// spread them. "" entries mean anywhere. Nil when not packing: the
// cluster's own placement is what uniform asks for.
func (c *Core) preferNodes(g *group, n int) []string {
	if n <= 0 || c.opts.Allocator.Name() != "packed" {
		return nil
	}
	if g.info.NodeLabel != "" {
		// The packer knows no partitions: a node it picks may be outside
		// the group's label's, and a strict ask there would pend forever.
		// The ResourceManager places these (an ask at ANY, which the
		// label confines to the partition).
		return nil
	}
	// Nodes in a labelled partition (from the node reports) are not named
	// either: this group's asks are the default partition's, and a
	// strict ask on an exclusive partition's node would pend forever.
	// (A labelled group's workers there look medium to the packer.)
	// A group with other resource types (a GPU) counts them: only nodes
	// that reported enough free are named (freeTypes), so no strict ask
	// waits on a node without one.
	typed := len(g.info.Resources) > 0
	var nodes []packing.Node
	for _, id := range sortedKeys(c.nodes) {
		nd := c.nodes[id]
		if nd.draining || c.clusterLabels[id] != "" || c.askedFull(id) {
			continue
		}
		used := c.inFlightMB(id) + c.clusterOthers[id]
		for w := range nd.workers {
			used += w.info.MemoryMB
		}
		pn := packing.Node{ID: id, CapacityMB: nd.capacityMB, UsedMB: used, FitsMB: nd.capacityMB - used}
		if typed {
			pn.FreeTypes = c.freeTypes(id, nd)
		}
		nodes = append(nodes, pn)
	}
	// The cluster's other nodes, empty as far as this AM knows: a group's
	// first workers go where the allocator prefers, not where the
	// ResourceManager would spread them.
	for _, id := range sortedKeys(c.cluster) {
		if _, ok := c.nodes[id]; ok {
			continue
		}
		if _, bad := c.blacklist[id]; bad || c.clusterLabels[id] != "" || c.askedFull(id) {
			continue
		}
		used := c.inFlightMB(id) + c.clusterOthers[id]
		pn := packing.Node{ID: id, CapacityMB: c.cluster[id], UsedMB: used, FitsMB: c.cluster[id] - used}
		if typed {
			pn.FreeTypes = c.freeTypes(id, nil)
		}
		nodes = append(nodes, pn)
	}
	if len(nodes) == 0 {
		return nil
	}
	return packing.PlanWorkers(c.opts.Allocator, nodes, packing.Request{MemoryMB: g.info.MemoryMB, Types: g.info.Resources}, n, seedOf(g.info.Name))
}
