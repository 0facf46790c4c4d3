package core

import (
	"slices"
	"sort"

	"github.com/ebb-am/ebb/scheduler"
)

// kindOf is a group's ContainerKind: groups whose workers have the same
// container resources (memory, vcores) are compatible, because a recycled
// worker keeps its container and only its identity, environment and task
// memory change (scheduler.KindKey).
func kindOf(g *group) string {
	return scheduler.KindKey(g.props)
}

// demand is how many workers a group wants under on-demand scaling: its
// live workers plus enough for the queued attempts that found no room.
func (g *group) demand(live int) int {
	want := live
	if mb := g.queuedMB + g.backupMB; mb > 0 && g.info.MemoryMB > 0 {
		want = live + int((mb+g.info.MemoryMB-1)/g.info.MemoryMB)
	}
	if g.maxW > 0 && want > g.maxW {
		want = g.maxW
	}
	return want
}

func (g *group) live() int { return len(g.workers) - g.unavail }

// recycle hands free workers to other groups of their kind instead of
// letting them go back to the cluster (mr3.container.scheduler.scheme):
// under fifo and fair a worker that is free (no attempt, no needed
// output) goes at once to the oldest group of its kind that needs one;
// fair also rebalances every interval towards each group's fair share,
// marking busy workers of groups above their share to move once free
// (after the DAGs running on them are done).
func (c *Core) recycle() {
	if !c.opts.Recycle.Recycles() {
		return
	}
	kinds := map[string][]*group{}
	var keys []string
	for _, g := range c.gorder {
		k := kindOf(g)
		if len(kinds[k]) == 0 {
			keys = append(keys, k)
		}
		kinds[k] = append(kinds[k], g)
	}
	fairNow := c.opts.Recycle == scheduler.RecycleFair && c.now.Sub(c.lastFair) >= c.opts.RecycleInterval
	if fairNow {
		c.lastFair = c.now
	}
	for _, k := range keys {
		gs := kinds[k]
		if len(gs) < 2 {
			continue
		}
		if fairNow {
			c.rebalance(gs)
		}
		c.moveFree(gs)
	}
}

func (c *Core) kindGroups(gs []*group) []scheduler.KindGroup {
	out := make([]scheduler.KindGroup, len(gs))
	for i, g := range gs {
		// Requests the cluster has not filled yet do not count: a free
		// worker of the kind should replace them (they are then cancelled).
		live := g.live() + g.incoming
		want := g.demand(g.live())
		if c.opts.Scaling == ScaleAutoscaler && g.as != nil {
			want = max(want, g.as.target)
		}
		if len(g.owners) == 0 && g.queue.Len() == 0 {
			want = 0
		}
		out[i] = scheduler.KindGroup{Name: g.info.Name, Seq: g.seq, Workers: live, Wanted: want}
	}
	return out
}

// moveFree moves free workers: those marked by a fair rebalancing to
// their chosen group, and any other free worker to the oldest group of
// the kind that needs one.
func (c *Core) moveFree(gs []*group) {
	var free []*workerRun
	for _, g := range gs {
		for w := range g.workers {
			if w.idle() && !w.stopping && (!w.draining || w.recycleTo != nil) {
				free = append(free, w)
			}
		}
	}
	sort.Slice(free, func(i, j int) bool { return free[i].info.ID < free[j].info.ID })
	for _, w := range free {
		if w.recycleTo != nil {
			c.migrate(w, w.recycleTo)
			continue
		}
		// A free worker goes at once to the oldest group of its kind that
		// needs one, under fifo and fair alike: waiting for the next fair
		// round would only make that group ask the cluster for a new one.
		to := scheduler.FIFOTarget(c.kindGroups(gs), w.group.info.Name)
		if to == "" {
			continue
		}
		c.migrate(w, c.groups[to])
	}
}

// rebalance applies fair shares: free workers move at once, busy ones are
// marked to move when they are free and take no new attempts meanwhile.
func (c *Core) rebalance(gs []*group) {
	for _, m := range scheduler.FairMoves(c.kindGroups(gs)) {
		from, to := c.groups[m.From], c.groups[m.To]
		if from == nil || to == nil {
			continue
		}
		var ws []*workerRun
		for w := range from.workers {
			if !w.stopping && !w.draining && w.recycleTo == nil {
				ws = append(ws, w)
			}
		}
		// Free workers first, then the least busy.
		sort.Slice(ws, func(i, j int) bool {
			a, b := ws[i], ws[j]
			if a.idle() != b.idle() {
				return a.idle()
			}
			if len(a.running) != len(b.running) {
				return len(a.running) < len(b.running)
			}
			return a.info.ID < b.info.ID
		})
		for i := 0; i < m.N && i < len(ws); i++ {
			w := ws[i]
			w.recycleTo = to
			from.markDraining(w)
			to.incoming++ // on its way: the target need not ask the cluster for it
			c.logf("fair recycling: worker %s of group %s will go to group %s once free", w.info.ID, from.info.Name, to.info.Name)
		}
	}
}

// migrate gives a free worker to another group: the same process and
// container, reinitialised with the new group's identity and environment.
func (c *Core) migrate(w *workerRun, to *group) {
	from := w.group
	if w.recycleTo != nil {
		w.recycleTo.incoming--
	}
	from.removeWorker(w)
	w.draining = false
	w.recycleTo = nil
	w.group = to
	w.idleFrom = c.now
	to.addWorker(w)
	c.recycled++
	from.wanted = -1
	to.wanted = -1
	c.logf("worker %s recycled from group %s to group %s", w.info.ID, from.info.Name, to.info.Name)
	c.emit(MoveWorker{Worker: w.info.ID, From: from.info.Name, Group: to.info})
}

// Recycled counts workers handed from one group to another.
func (c *Core) Recycled() int { return c.recycled }

// removeEmptyGroups forgets groups that no DAG owns and no worker serves
// (mr3.container.scheduler.remove.empty.kind: with false, empty groups are
// kept so their kind stays known for recycling).
func (c *Core) removeEmptyGroups() {
	if !c.opts.RemoveEmptyKind {
		return
	}
	for _, g := range slices.Clone(c.gorder) {
		if len(g.owners) == 0 && len(g.workers) == 0 && g.queue.Len() == 0 {
			c.releaseGroup(g)
		}
	}
}
