package core

import "github.com/ebb-am/ebb/scheduler"

// maxFailsPerDAG: after this many attempts of a DAG found no room in one
// pass, the pass looks at other DAGs only.
const maxFailsPerDAG = 4

// passHeads keeps a placement pass's OrderSnapshot.Heads current: each
// queued DAG's next attempt, in fifo order, leaving out DAGs that failed
// too often in this pass, with dags[i] the DAG of Heads[i].
//
// Rebuilding every head after every placement cost O(queued DAGs) per
// placement, most of a long sim run. Two cheaper ways, both giving the
// order exactly the heads a rebuild would:
//   - an order that reads only the first k heads (scheduler.HeadsReader,
//     fifo) gets only those, rebuilt after each placement from the front
//     of the queue: O(k + DAGs skipped for failing) per placement;
//   - any other order gets every head once per pass; a start, a failed fit
//     or a lost input then changes only the head of the DAG whose attempt
//     it was (its queue, its running count, its demand), so only that
//     entry is recomputed.
type passHeads struct {
	c      *Core
	g      *group
	snap   *scheduler.OrderSnapshot
	demand map[*dagRun]*scheduler.RASDemand // nil unless the order is resource-aware
	// fails counts, per DAG, the attempts of this pass that found no room.
	// A pass holds at most maxSkips attempts, so a short list searched
	// in place does, without a map allocated per pass.
	fails  [maxSkips]dagFails
	nfails int
	limit  int // heads the order reads; 0: all
	dags   []*dagRun
}

// newPassHeads fills snap.Heads for a pass over g's queue. The buffers are
// the queue's, reused pass after pass (a TaskOrder keeps nothing between
// calls).
// It returns a value, not a pointer: the pass keeps it on its stack.
func (c *Core) newPassHeads(g *group, snap *scheduler.OrderSnapshot, demand map[*dagRun]*scheduler.RASDemand) passHeads {
	p := passHeads{c: c, g: g, snap: snap, demand: demand}
	if hr, ok := c.opts.Tasks.(scheduler.HeadsReader); ok {
		p.limit = max(hr.HeadsRead(), 1)
	}
	p.rebuild()
	return p
}

// rebuild lists the heads from the front of the queue, up to the limit.
func (p *passHeads) rebuild() {
	q := &p.g.queue
	p.snap.Heads, p.dags = q.heads[:0], q.headDAGs[:0]
	for _, d := range q.dags {
		if p.limit > 0 && len(p.dags) == p.limit {
			break
		}
		if p.failsOf(d) >= maxFailsPerDAG {
			continue
		}
		p.snap.Heads = append(p.snap.Heads, p.c.queueHead(p.g, d, p.demand))
		p.dags = append(p.dags, d)
	}
	q.heads, q.headDAGs = p.snap.Heads, p.dags
}

// failed records that the attempt taken from head i found no room.
func (p *passHeads) failed(i int) {
	d := p.dags[i]
	for k := range p.fails[:p.nfails] {
		if p.fails[k].dag == d {
			p.fails[k].n++
			p.changed(i)
			return
		}
	}
	p.fails[p.nfails] = dagFails{dag: d, n: 1}
	p.nfails++
	p.changed(i)
}

// failsOf is how many of d's attempts found no room in this pass.
func (p *passHeads) failsOf(d *dagRun) int {
	for _, f := range p.fails[:p.nfails] {
		if f.dag == d {
			return f.n
		}
	}
	return 0
}

type dagFails struct {
	dag *dagRun
	n   int
}

// changed brings the heads up to date after the pass took an attempt
// from head i: it drops the DAG when its queue is empty or it failed
// maxFailsPerDAG times in this pass, as a rebuild would.
func (p *passHeads) changed(i int) {
	if p.limit > 0 {
		p.rebuild()
		return
	}
	d := p.dags[i]
	if p.g.queue.byDAG[d] == nil || p.failsOf(d) >= maxFailsPerDAG {
		p.snap.Heads = append(p.snap.Heads[:i], p.snap.Heads[i+1:]...)
		p.dags = append(p.dags[:i], p.dags[i+1:]...)
		return
	}
	p.snap.Heads[i] = p.c.queueHead(p.g, d, p.demand)
}

// queueHead is d's next queued task as the task order sees it.
func (c *Core) queueHead(g *group, d *dagRun, demand map[*dagRun]*scheduler.RASDemand) scheduler.QueueHead {
	tq := g.queue.byDAG[d]
	t := tq.at(c.nextIndex(d, tq))
	h := scheduler.QueueHead{DAG: d.id, Running: d.running, MemoryMB: t.memoryMB()}
	if demand != nil {
		v := t.vertex
		h.Kind, h.Profile = v.rasKind(), toProfile(v.activeProfile())
		if dm := demand[d]; dm != nil {
			h.Demand = *dm
		}
	}
	return h
}
