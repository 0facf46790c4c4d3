package sim

import (
	"fmt"
	"sort"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/packing"
)

// vnode is a node of the virtual cloud.
type vnode struct {
	id         string
	readyAt    time.Time
	ready      bool
	workers    map[string]*vworker
	reservedMB int64 // memory of the workers placed here
	emptySince time.Time
	lastUp     time.Time // when a worker was last placed here (k8s-ca's scale-up cool-down)
	unneeded   time.Time // k8s-ca: since when the node has been under-requested
	draining   bool
	removed    bool
}

type vworker struct {
	id      string
	group   core.GroupInfo
	node    *vnode
	started bool // registered with the core
	stopped bool
}

// world is the virtual cloud as the AM core's World: it provisions nodes
// with a delay, starts workers on them, and gives empty nodes back.
type world struct {
	e      *engine
	nodes  []*vnode
	byID   map[string]*vnode
	work   map[string]*vworker
	want   map[string]int
	groups map[string]core.GroupInfo
	avoid  map[string]bool
	nextN  int
	nextW  int
	alloc  packing.Allocator
}

func newWorld(e *engine, alloc packing.Allocator) *world {
	return &world{e: e, byID: map[string]*vnode{}, work: map[string]*vworker{}, want: map[string]int{},
		groups: map[string]core.GroupInfo{}, avoid: map[string]bool{}, alloc: alloc}
}

func (w *world) NodeMB(string) int64 { return w.e.cfg.nodeMB() }

func (w *world) provision(now time.Time, ready bool) *vnode {
	id, readyAt, err := w.e.cloud.Provision(now, "")
	if err != nil {
		return nil // at the cap: the core will ask again
	}
	w.e.lastProvision = now
	n := &vnode{id: id, readyAt: readyAt, workers: map[string]*vworker{}, emptySince: now}
	w.nodes = append(w.nodes, n)
	w.byID[id] = n
	if ready || !readyAt.After(now) {
		n.ready = true
		n.readyAt = now
	} else {
		w.e.clk.at(readyAt, func(t time.Time) { w.nodeReady(t, n) })
	}
	return n
}

func (w *world) nodeReady(now time.Time, n *vnode) {
	if n.removed {
		return
	}
	n.ready = true
	n.emptySince = now
	for _, id := range sortedIDs(n.workers) {
		w.startWorker(now, n.workers[id])
	}
	w.maybeRelease(now, n)
}

func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// WantWorkers moves a group toward total workers.
func (w *world) WantWorkers(now time.Time, g core.GroupInfo, total int, _ []string, avoid []string) {
	w.groups[g.Name] = g
	w.want[g.Name] = total
	w.avoid = map[string]bool{}
	for _, a := range avoid {
		w.avoid[a] = true
	}
	w.reconcile(now, g.Name)
}

func (w *world) reconcile(now time.Time, group string) {
	live, waiting := 0, []*vworker{}
	for _, id := range sortedIDs(w.work) {
		x := w.work[id]
		if x.group.Name != group || x.stopped {
			continue
		}
		if x.started {
			live++
		} else {
			waiting = append(waiting, x)
		}
	}
	// Cancel workers not yet started beyond the total, newest first.
	for extra := live + len(waiting) - w.want[group]; extra > 0 && len(waiting) > 0; extra-- {
		x := waiting[len(waiting)-1]
		waiting = waiting[:len(waiting)-1]
		w.unplace(now, x)
		delete(w.work, x.id)
	}
	for need := w.want[group] - live - len(waiting); need > 0; need-- {
		w.nextW++
		x := &vworker{id: fmt.Sprintf("vw%06d", w.nextW), group: w.groups[group]}
		if !w.place(now, x) {
			break // the cloud is at its cap: the core will ask again
		}
		w.work[x.id] = x
	}
}

// place puts a new worker on a node with room (the policy's allocator
// chooses among ready nodes first, then nodes being provisioned), or on a
// new node when none has room.
func (w *world) place(now time.Time, x *vworker) bool {
	mb := x.group.MemoryMB
	if mb > w.e.cfg.nodeMB() {
		if w.e.err == nil {
			w.e.err = fmt.Errorf("policy %s: group %s asks for %d MB workers, more than a %d MB node holds (raise --node-memory-mb or lower --worker-memory-mb)",
				w.e.policy.Name, x.group.Name, mb, w.e.cfg.nodeMB())
		}
		return false
	}
	pick := func(ready bool) *vnode {
		var cands []packing.Node
		var idx []*vnode
		for _, n := range w.nodes {
			if n.ready != ready || n.draining || n.removed || w.avoid[n.id] {
				continue
			}
			free := w.e.cfg.nodeMB() - n.reservedMB
			if free < mb {
				continue
			}
			cands = append(cands, packing.Node{ID: n.id, CapacityMB: w.e.cfg.nodeMB(), UsedMB: n.reservedMB, FitsMB: free})
			idx = append(idx, n)
		}
		if len(cands) == 0 {
			return nil
		}
		if i, ok := w.alloc.Choose(cands, packing.Request{MemoryMB: mb, Seed: uint64(w.nextW)}); ok {
			return idx[i]
		}
		return nil
	}
	n := pick(true)
	if n == nil {
		n = pick(false)
	}
	if n == nil {
		if limit := w.e.cfg.Cloud.MaxNodes; limit > 0 && w.liveNodes() >= limit {
			return false
		}
		n = w.provision(now, false)
		if n == nil {
			return false
		}
	}
	x.node = n
	n.workers[x.id] = x
	n.reservedMB += mb
	n.lastUp = now
	if n.ready {
		w.startWorker(now, x)
	}
	return true
}

func (w *world) liveNodes() int {
	k := 0
	for _, n := range w.nodes {
		if !n.removed {
			k++
		}
	}
	return k
}

// startWorker registers a worker with the core after the container start
// delay.
func (w *world) startWorker(now time.Time, x *vworker) {
	if x.started {
		return
	}
	x.started = true
	w.e.clk.after(w.e.cfg.WorkerStartDelay, func(t time.Time) {
		if x.stopped || w.work[x.id] != x {
			return
		}
		err := w.e.core.WorkerRegistered(t, core.WorkerInfo{ID: x.id, Group: x.group.Name, Node: x.node.id,
			NodeMB: w.e.cfg.nodeMB(), MemoryMB: x.group.MemoryMB, VCores: x.group.VCores, Address: x.id})
		if err != nil {
			x.stopped = true
			w.unplace(t, x)
			delete(w.work, x.id)
		}
		w.e.dispatch(t)
	})
}

func (w *world) unplace(now time.Time, x *vworker) {
	n := x.node
	if n == nil {
		return
	}
	delete(n.workers, x.id)
	n.reservedMB -= x.group.MemoryMB
	x.node = nil
	if len(n.workers) == 0 {
		n.emptySince = now
		w.maybeRelease(now, n)
	}
}

// WorkerStopped: the core stopped a worker; in the virtual cloud it exits at once.
func (w *world) WorkerStopped(now time.Time, id string) {
	x, ok := w.work[id]
	if !ok {
		return
	}
	x.stopped = true
	delete(w.work, id)
	w.e.clk.at(now, func(t time.Time) {
		w.e.core.WorkerLost(t, id, "stopped")
		w.unplace(t, x)
		w.e.dispatch(t)
	})
}

// maybeRelease gives an empty node back after the reclamation delay, unless
// the policy keeps nodes (static) or removes them itself (k8s-ca).
func (w *world) maybeRelease(now time.Time, n *vnode) {
	if w.e.policy.Static > 0 || w.e.policy.NodeScaler == "k8s-ca" || !n.ready || n.removed {
		return
	}
	since := n.emptySince
	w.e.clk.at(w.e.cloud.ReclaimAt(now), func(t time.Time) {
		if n.removed || len(n.workers) > 0 || !n.emptySince.Equal(since) {
			return
		}
		w.remove(t, n)
	})
}

func (w *world) remove(now time.Time, n *vnode) {
	n.removed = true
	w.e.cloud.Release(now, n.id)
}

func (w *world) WorkerMoved(now time.Time, id string, g core.GroupInfo) {
	if x, ok := w.work[id]; ok {
		x.group = g
		w.groups[g.Name] = g
	}
}

func (w *world) Tick(now time.Time) {
	if w.e.policy.NodeScaler == "k8s-ca" {
		w.k8sScaleDown(now)
	}
}

func (w *world) Close() error { return nil }
