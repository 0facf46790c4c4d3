package cluster

import (
	"maps"
	"slices"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// Want moves group g toward total workers (started plus waiting), with
// avoid as the nodes no new worker may go to (draining ones; the list
// replaces the previous one). Waiting workers beyond the total are
// cancelled newest first; started ones are left to the caller to stop.
// Only g is reconciled: another group's total may be about to change in
// the same batch (a recycled worker moving between them). A TooBigError
// says g's workers fit on no node.
func (m *Model) Want(now time.Time, g Group, total int, avoid []string) ([]Event, error) {
	m.want[g.Name] = total
	m.avoid = make(map[string]bool, len(avoid))
	for _, a := range avoid {
		m.avoid[a] = true
	}
	var ev []Event
	live, waiting := m.count(g.Name)
	for extra := live + len(waiting) - total; extra > 0 && len(waiting) > 0; extra-- {
		m.forget(now, waiting[len(waiting)-1], &ev)
		waiting = waiting[:len(waiting)-1]
	}
	m.placeQueued(now, &ev)
	for need := total - live - len(waiting); need > 0; need-- {
		m.seq++
		w := &worker{id: m.o.WorkerID(m.seq), seq: m.seq, group: g.Name, mb: g.MemoryMB, vcores: g.VCores, types: g.Types}
		ok, err := m.place(now, w, &ev)
		if err != nil {
			return ev, err
		}
		if !ok && !m.o.QueueUnplaced {
			break // at the cap: the caller asks again
		}
		m.workers = append(m.workers, w)
		m.byW[w.id] = w
	}
	return ev, nil
}

// count is a group's started workers and its waiting ones in seq order.
func (m *Model) count(group string) (live int, waiting []*worker) {
	for _, w := range m.workers {
		if w.group != group || w.stopped {
			continue
		}
		if w.started {
			live++
		} else {
			waiting = append(waiting, w)
		}
	}
	return live, waiting
}

// placeQueued gives queued workers a node, oldest first.
func (m *Model) placeQueued(now time.Time, ev *[]Event) {
	for _, w := range m.workers {
		if w.node == nil && !w.stopped {
			// Not placed: it stays queued. No error: a too-big worker is
			// never queued.
			_, _ = m.place(now, w, ev)
		}
	}
}

// place puts w on a ready node with room, else on a node being
// provisioned with room, else on a new node if the cap allows. It starts
// at once on a ready node.
func (m *Model) place(now time.Time, w *worker, ev *[]Event) (bool, error) {
	if w.mb > m.o.NodeMB {
		return false, &TooBigError{Group: w.group, WorkerMB: w.mb, NodeMB: m.o.NodeMB}
	}
	for _, name := range slices.Sorted(maps.Keys(w.types)) {
		if w.types[name] > m.o.NodeTypes[name] {
			return false, &TooBigError{Group: w.group, Type: name, Want: w.types[name], NodeHas: m.o.NodeTypes[name]}
		}
	}
	n := m.pick(w, true)
	if n == nil {
		n = m.pick(w, false)
	}
	if n == nil {
		if m.atCap() {
			return false, nil
		}
		var err error
		if n, err = m.provision(now, false, ev); err != nil {
			return false, nil // the provider has no node now: as at the cap
		}
	}
	w.node = n
	n.add(w)
	if n.ready {
		m.start(w, ev)
	}
	return true, nil
}

// pick asks the allocator for a node among those with room that are ready
// (or, with ready false, being provisioned), not draining and not avoided.
func (m *Model) pick(w *worker, ready bool) *node {
	var cands []packing.Node
	var idx []*node
	for _, n := range m.nodes {
		if n.ready != ready || n.draining || m.avoid[n.id] {
			continue
		}
		free := m.o.NodeMB - n.usedMB
		if free < w.mb {
			continue
		}
		c := packing.Node{ID: n.id, CapacityMB: m.o.NodeMB, UsedMB: n.usedMB, FitsMB: free}
		if len(w.types) > 0 {
			// Only a worker with types looks: the others place as before.
			c.FreeTypes = m.freeTypes(n)
		}
		cands = append(cands, c)
		idx = append(idx, n)
	}
	if len(cands) == 0 {
		return nil
	}
	req := packing.Request{MemoryMB: w.mb, Types: w.types, Seed: uint64(w.seq)}
	if m.o.Allocator == nil {
		// The first that fits, as the allocator would judge it.
		for i := range cands {
			if typesFree(cands[i].FreeTypes, w.types) {
				return idx[i]
			}
		}
		return nil
	}
	if i, ok := m.o.Allocator.Choose(cands, req); ok {
		return idx[i]
	}
	return nil
}

// freeTypes is how much of each resource type node n has free.
func (m *Model) freeTypes(n *node) map[string]int64 {
	free := make(map[string]int64, len(m.o.NodeTypes))
	for name, v := range m.o.NodeTypes {
		free[name] = v - n.usedTypes[name]
	}
	return free
}

func typesFree(free, want map[string]int64) bool {
	for name, v := range want {
		if free[name] < v {
			return false
		}
	}
	return true
}

// add keeps a node's workers oldest first: they start in that order when
// it comes up, even when an older worker was queued and placed later.
func (n *node) add(w *worker) {
	i := len(n.workers)
	for i > 0 && n.workers[i-1].seq > w.seq {
		i--
	}
	n.workers = append(n.workers, nil)
	copy(n.workers[i+1:], n.workers[i:])
	n.workers[i] = w
	n.usedMB += w.mb
	for name, v := range w.types {
		if n.usedTypes == nil {
			n.usedTypes = map[string]int64{}
		}
		n.usedTypes[name] += v
	}
}

func (m *Model) start(w *worker, ev *[]Event) {
	if w.started {
		return
	}
	w.started = true
	*ev = append(*ev, Event{Kind: StartWorker, Worker: w.id, Node: w.node.id})
}

// forget drops a worker and frees its memory; a node left empty starts
// its reclaim delay.
func (m *Model) forget(now time.Time, w *worker, ev *[]Event) {
	delete(m.byW, w.id)
	for i, x := range m.workers {
		if x == w {
			m.workers = append(m.workers[:i], m.workers[i+1:]...)
			break
		}
	}
	n := w.node
	if n == nil {
		return
	}
	w.node = nil
	for i, x := range n.workers {
		if x == w {
			n.workers = append(n.workers[:i], n.workers[i+1:]...)
			break
		}
	}
	n.usedMB -= w.mb
	for name, v := range w.types {
		n.usedTypes[name] -= v
	}
	if len(n.workers) == 0 {
		n.emptySince = now
		m.emptied(n, ev)
	}
}

// Stop marks a worker the AM has told to exit: it no longer counts toward
// its group, but its memory stays taken until Gone. False if the worker is
// unknown or already stopped.
func (m *Model) Stop(id string) bool {
	w, ok := m.byW[id]
	if !ok || w.stopped {
		return false
	}
	w.stopped = true
	return true
}

// Gone: the worker's process is gone (it exited, failed to start, or the
// container ended). Its memory is freed, and queued workers may take it.
func (m *Model) Gone(now time.Time, id string) []Event {
	w, ok := m.byW[id]
	if !ok {
		return nil
	}
	var ev []Event
	m.forget(now, w, &ev)
	m.placeQueued(now, &ev)
	return ev
}

// Move hands a worker to another group of its kind (recycling): the
// container stays, with the same memory; only the group it counts for
// changes.
func (m *Model) Move(id, group string) bool {
	w, ok := m.byW[id]
	if ok {
		w.group = group
	}
	return ok
}

// WorkerInfo describes a worker.
type WorkerInfo struct {
	ID       string
	Group    string
	MemoryMB int64
	VCores   int
	Node     string // "" while queued
	Started  bool
	Stopped  bool
}

// Worker describes worker id, if the model knows it.
func (m *Model) Worker(id string) (WorkerInfo, bool) {
	w, ok := m.byW[id]
	if !ok {
		return WorkerInfo{}, false
	}
	return w.info(), true
}

func (w *worker) info() WorkerInfo {
	i := WorkerInfo{ID: w.id, Group: w.group, MemoryMB: w.mb, VCores: w.vcores, Started: w.started, Stopped: w.stopped}
	if w.node != nil {
		i.Node = w.node.id
	}
	return i
}

// Workers lists every worker the model knows, oldest first.
func (m *Model) Workers() []WorkerInfo {
	out := make([]WorkerInfo, len(m.workers))
	for i, w := range m.workers {
		out[i] = w.info()
	}
	return out
}

// Count is a group's started workers and those waiting (for a node, or
// for their node to come up); stopped ones count in neither.
func (m *Model) Count(group string) (started, waiting int) {
	live, wait := m.count(group)
	return live, len(wait)
}
