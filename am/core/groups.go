package core

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// group is a ContainerGroup: workers of one size shared by every DAG that
// names it with identical properties.
type group struct {
	info    GroupInfo
	props   scheduler.GroupProps
	seq     int
	owners  map[*dagRun]struct{}
	workers map[*workerRun]struct{}
	// warmSince: when the group's first worker joined (zero: none yet).
	// A DAG submitted before it waited for the cold start, which no
	// autoscaling could have spared it (slowdown.go).
	warmSince time.Time
	queue     dagQueues
	queuedMB  int64

	// pnodes is the allocator's view of the nodes holding this group's
	// workers, kept up to date incrementally so a placement costs one
	// Choose call, not a rebuild.
	pnodes []packing.Node
	fits   fitsIndex // pnodes by FitsMB (fits.go)
	// snap is the placement pass's task-order snapshot (place).
	snap scheduler.OrderSnapshot
	// pix is the allocator's index of pnodes when it keeps one
	// (packing.Indexer), kept in step with it; nil: every choice scans.
	pix    packing.Index
	byNode map[string]*groupNode // by node id; groupNode.i is the node's index in pnodes
	// gnodes[i] is pnodes[i]'s groupNode: the placement pass finds the
	// chosen node's workers by index, not by a lookup of its id.
	gnodes   []*groupNode
	wanted   int   // last WantWorkers total sent
	unavail  int   // workers draining or told to stop, still registered
	pending  int   // workers asked for and not yet registered (wanted - registered, >= 0)
	asked    []ask // under packing, the pending workers' asks (asked.go)
	replan   bool  // an ask was given up (asktimeout.go): tell the world a new plan
	maxW     int
	incoming int // workers a fair rebalancing is sending here
	// reserveHeld is the free memory the last placement pass left idle
	// while the reserve held attempts back (reserve.go): the autoscaler
	// counts it as in use, since queued work waits beside it.
	reserveHeld int64
	// stallSince: when the group last became stalled under slow start,
	// or killed consumers for it (stall.go); zero: not stalled.
	stallSince time.Time
	// backupMB: the memory of backups the last speculation pass wanted and
	// found no room for (speculate.go); on-demand scaling asks for it.
	backupMB int64
	sda      sparkDA     // ScaleSparkDA state
	as       *autoscaled // ScaleAutoscaler state
}

// groupFor finds or creates the group a spec names. Same name and same
// properties: one shared group. Same name, other properties: a
// *scheduler.GroupConflictError, so that no DAG silently runs in workers
// sized for another (scheduler.MergeGroup is the rule).
func (c *Core) groupFor(spec *dag.Spec) (*group, error) {
	gs := spec.Group
	p, err := c.groupProps(spec)
	if err != nil {
		return nil, err
	}
	if g, ok := c.groups[gs.Name]; ok {
		err := scheduler.MergeGroup(g.props, p)
		if err == nil {
			return g, nil
		}
		if !g.idle() {
			var ce *scheduler.GroupConflictError
			if errors.As(err, &ce) {
				ce.Owners = g.ownerIDs()
			}
			return nil, err
		}
		// No DAG uses it and no worker serves it: the name is free again,
		// so a session is not locked to the first DAG's sizes for ever.
		c.releaseGroup(g)
	}
	c.seq++
	g := &group{
		info:    GroupInfo{Name: p.Name, MemoryMB: p.WorkerMemoryMB, VCores: p.WorkerVCores, Env: p.Env, Resources: p.Resources, NodeLabel: p.NodeLabel},
		props:   p,
		seq:     c.seq,
		owners:  map[*dagRun]struct{}{},
		workers: map[*workerRun]struct{}{},
		byNode:  map[string]*groupNode{},
		maxW:    p.MaxWorkers,
	}
	if ix, ok := c.opts.Allocator.(packing.Indexer); ok {
		g.pix = ix.NewIndex()
	}
	if g.maxW == 0 {
		g.maxW = c.opts.MaxWorkers
	}
	c.groups[gs.Name] = g
	c.gorder = append(c.gorder, g)
	if p.SizedByEbb {
		c.logf("group %s: workers of %d MB, sized by ebb for DAG %s (tasks of up to %d MB; at most %d per worker; largest container %d MB, smallest %d MB)",
			p.Name, p.WorkerMemoryMB, spec.Name, p.TaskMB, c.opts.WorkerTasks, c.opts.Allocation.MaxMB, c.opts.Allocation.MinMB)
	}
	return g, nil
}

// groupProps are the properties a spec gives its group, with the defaults
// filled in (vcores 1; the worker size when the spec leaves it to ebb)
// and an Env of the group's own, so that a later change to the caller's
// map cannot alter the group.
func (c *Core) groupProps(spec *dag.Spec) (scheduler.GroupProps, error) {
	gs := spec.Group
	p := scheduler.GroupProps{Name: gs.Name, WorkerMemoryMB: gs.WorkerMemoryMB, WorkerVCores: gs.WorkerVCores,
		Env: maps.Clone(gs.Env), MaxWorkers: gs.MaxWorkers, Resources: spec.WorkerResources(), NodeLabel: gs.NodeLabel}
	if p.WorkerVCores == 0 {
		p.WorkerVCores = 1
	}
	if !gs.AutoSized() {
		return p, nil
	}
	shape := make([]scheduler.TaskShape, len(spec.Vertices))
	for i, v := range spec.Vertices {
		shape[i] = scheduler.TaskShape{MemoryMB: v.MemoryMB, Parallelism: v.Parallelism}
		p.TaskMB = max(p.TaskMB, v.MemoryMB)
	}
	mb, err := scheduler.SizeWorker(shape, c.opts.WorkerTasks, c.opts.Allocation)
	if err != nil {
		return p, fmt.Errorf("containerGroup %s leaves workerMemoryMB to ebb, but %w", gs.Name, err)
	}
	p.WorkerMemoryMB, p.SizedByEbb = mb, true
	return p, nil
}

func (g *group) push(t *taskRun) {
	g.queue.push(t)
	g.queuedMB += t.memoryMB()
}

// dropQueued removes a finished DAG's tasks from the queue.
func (g *group) dropQueued(d *dagRun) {
	for _, t := range g.queue.drop(d) {
		g.queuedMB -= t.memoryMB()
	}
}

// markDraining takes a worker out of the group's usable capacity: it gets
// no new attempts and does not count as a live worker.
func (g *group) markDraining(w *workerRun) {
	if !w.draining {
		w.draining = true
		g.unavail++
		if g.as != nil {
			// A worker leaving on purpose is not to be replaced: the
			// autoscaler's target shrinks with it.
			g.as.target = min(g.as.target, len(g.workers)-g.unavail+g.pending)
		}
	}
	g.workerChanged(w)
}

// groupNode is a node as one group sees it: the group's workers there and
// the node's entry in the group's pnodes. A node lists its groupNodes
// (nodeRun.groups), so the start or end of an attempt refreshes each
// group's entry without a lookup by node id.
type groupNode struct {
	g       *group
	node    *nodeRun
	i       int // the node's index in g.pnodes
	workers []*workerRun
}

// workersOn lists g's workers on node id.
func (g *group) workersOn(id string) []*workerRun {
	if gn := g.byNode[id]; gn != nil {
		return gn.workers
	}
	return nil
}

// addWorker puts a worker into the allocator's view.
func (g *group) addWorker(w *workerRun) {
	g.workers[w] = struct{}{}
	if w.draining {
		g.unavail++
	}
	id := w.node.id
	gn := g.byNode[id]
	if gn == nil {
		gn = &groupNode{g: g, node: w.node, i: len(g.pnodes)}
		g.byNode[id] = gn
		w.node.groups = append(w.node.groups, gn)
		g.pnodes = append(g.pnodes, packing.Node{ID: id, CapacityMB: w.node.capacityMB})
		g.gnodes = append(g.gnodes, gn)
		g.fits.add(0)
		if g.pix != nil {
			g.pix.Resize(len(g.pnodes))
			g.pix.Set(len(g.pnodes)-1, g.pnodes[len(g.pnodes)-1])
		}
	}
	gn.workers = append(gn.workers, w)
	g.refresh(gn)
}

func (g *group) removeWorker(w *workerRun) {
	delete(g.workers, w)
	if w.draining {
		g.unavail--
	}
	id := w.node.id
	gn := g.byNode[id]
	if k := slices.Index(gn.workers, w); k >= 0 {
		gn.workers = slices.Delete(gn.workers, k, k+1)
	}
	if len(gn.workers) > 0 {
		g.refresh(gn)
		return
	}
	delete(g.byNode, id)
	if k := slices.Index(w.node.groups, gn); k >= 0 {
		w.node.groups = slices.Delete(w.node.groups, k, k+1)
	}
	i := gn.i
	g.fits.remove(g.pnodes[i].FitsMB)
	last := len(g.pnodes) - 1
	g.pnodes[i] = g.pnodes[last]
	g.gnodes[i] = g.gnodes[last]
	g.gnodes[i].i = i
	g.gnodes[last] = nil
	g.pnodes = g.pnodes[:last]
	g.gnodes = g.gnodes[:last]
	if g.pix != nil {
		if i < last {
			g.pix.Set(i, g.pnodes[i])
		}
		g.pix.Resize(last)
	}
}

// workerChanged refreshes the allocator's entry for w's node: the largest
// request one of the group's workers there can take, and the node's usage
// (nothing when none of g's workers is there).
func (g *group) workerChanged(w *workerRun) {
	if gn := g.byNode[w.node.id]; gn != nil {
		g.refresh(gn)
	}
}

// refresh recomputes gn's entry in g.pnodes.
func (g *group) refresh(gn *groupNode) {
	var fits int64
	for _, x := range gn.workers {
		if !x.draining && x.freeMB > fits {
			fits = x.freeMB
		}
	}
	i := gn.i
	g.fits.change(g.pnodes[i].FitsMB, fits)
	g.pnodes[i].FitsMB = fits
	g.pnodes[i].UsedMB = gn.node.usedMB
	if g.pix != nil {
		g.pix.Set(i, g.pnodes[i])
	}
}

// nodeUsageChanged refreshes the view of a node of every group with a
// worker there (n.groups, kept as workers join and leave groups: walking
// the node's workers to find them, then each group's entry by node id,
// cost map lookups per attempt start and end).
func (c *Core) nodeUsageChanged(n *nodeRun) {
	for _, gn := range n.groups {
		gn.g.refresh(gn)
	}
}

// idle: no DAG owns the group, no worker serves it or is on its way, and
// nothing is queued, so it can be released.
func (g *group) idle() bool {
	return len(g.owners) == 0 && len(g.workers) == 0 && g.queue.Len() == 0 && g.pending == 0 && g.incoming == 0
}

// ownerIDs are the ids of the DAGs using the group, sorted.
func (g *group) ownerIDs() []string {
	ids := make([]string, 0, len(g.owners))
	for d := range g.owners {
		ids = append(ids, d.id)
	}
	sort.Strings(ids)
	return ids
}

// releaseGroup forgets an idle group.
func (c *Core) releaseGroup(g *group) {
	if g.wanted > 0 {
		c.emit(WantWorkers{Group: g.info, Total: 0})
	}
	delete(c.groups, g.info.Name)
	c.gorder = slices.DeleteFunc(c.gorder, func(x *group) bool { return x == g })
	c.logf("group %s released: no DAG uses it and no worker serves it", g.info.Name)
}
