package cluster

import (
	"fmt"
	"time"
)

// NodeReady brings node id up if its provisioning delay has passed at now,
// and starts the workers waiting on it, oldest first. Nothing happens for
// a node that is unknown, already up, or not yet due.
func (m *Model) NodeReady(now time.Time, id string) []Event {
	n, ok := m.byID[id]
	if !ok || n.ready || now.Before(n.readyAt) {
		return nil
	}
	var ev []Event
	m.becomeReady(now, n, &ev)
	return ev
}

func (m *Model) becomeReady(now time.Time, n *node, ev *[]Event) {
	n.ready = true
	n.emptySince = now
	*ev = append(*ev, Event{Kind: NodeReady, Node: n.id})
	for _, w := range n.workers {
		m.start(w, ev)
	}
	// A node whose workers were all cancelled while it came up is empty
	// now; one with workers is told about too, so that a caller that
	// schedules one check per NodeEmpty sees the node's whole life.
	m.emptied(n, ev)
}

// emptied reports a ready node's reclaim time, unless nodes are kept.
func (m *Model) emptied(n *node, ev *[]Event) {
	if m.o.KeepNodes || !n.ready {
		return
	}
	*ev = append(*ev, Event{Kind: NodeEmpty, Node: n.id, At: n.emptySince.Add(m.o.ReclaimDelay)})
}

// Reclaim removes node id if at now it has been empty for the reclaim
// delay (and nodes are not kept). A Provider error is returned after the
// node is gone from the model.
func (m *Model) Reclaim(now time.Time, id string) ([]Event, error) {
	n, ok := m.byID[id]
	if !ok || !m.reclaimable(now, n) {
		return nil, nil
	}
	var ev []Event
	return ev, m.remove(now, n, &ev)
}

func (m *Model) reclaimable(now time.Time, n *node) bool {
	return !m.o.KeepNodes && n.ready && len(n.workers) == 0 && now.Sub(n.emptySince) >= m.o.ReclaimDelay
}

// Remove gives an empty node back now, whatever its idle time (a node
// scaler on top decides). A node with workers is ErrNodeBusy.
func (m *Model) Remove(now time.Time, id string) ([]Event, error) {
	n, ok := m.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownNode, id)
	}
	if len(n.workers) > 0 {
		return nil, fmt.Errorf("removing %s: %w (%d)", id, ErrNodeBusy, len(n.workers))
	}
	var ev []Event
	return ev, m.remove(now, n, &ev)
}

func (m *Model) remove(now time.Time, n *node, ev *[]Event) error {
	delete(m.byID, n.id)
	for i, x := range m.nodes {
		if x == n {
			m.nodes = append(m.nodes[:i], m.nodes[i+1:]...)
			break
		}
	}
	*ev = append(*ev, Event{Kind: NodeRemoved, Node: n.id})
	if err := m.p.Release(now, n.id); err != nil {
		return fmt.Errorf("releasing %s: %w", n.id, err)
	}
	return nil
}

// Drain marks a node draining: no new worker goes there, for good.
func (m *Model) Drain(id string) bool {
	n, ok := m.byID[id]
	if ok {
		n.draining = true
	}
	return ok
}

// Tick does everything due at now: nodes whose provisioning delay has
// passed come up, nodes empty for the reclaim delay go, and queued workers
// get the room. It suits a caller that wakes on a steady tick (the local
// world); the sim calls NodeReady and Reclaim at the times the events name.
func (m *Model) Tick(now time.Time) ([]Event, error) {
	var ev []Event
	for _, n := range m.nodes {
		if !n.ready && !now.Before(n.readyAt) {
			m.becomeReady(now, n, &ev)
		}
	}
	var errs []error
	for _, n := range append([]*node(nil), m.nodes...) {
		if m.reclaimable(now, n) {
			if err := m.remove(now, n, &ev); err != nil {
				errs = append(errs, err)
			}
		}
	}
	m.placeQueued(now, &ev)
	if len(errs) > 0 {
		return ev, errs[0]
	}
	return ev, nil
}

// Wake is the earliest time after which Tick has something to do: a node
// comes up, or an empty node's reclaim delay runs out. False when nothing
// is pending on time alone.
func (m *Model) Wake() (time.Time, bool) {
	var t time.Time
	found := false
	earlier := func(at time.Time) {
		if !found || at.Before(t) {
			t, found = at, true
		}
	}
	for _, n := range m.nodes {
		switch {
		case !n.ready:
			earlier(n.readyAt)
		case !m.o.KeepNodes && len(n.workers) == 0:
			earlier(n.emptySince.Add(m.o.ReclaimDelay))
		}
	}
	return t, found
}

// NodeInfo describes a node.
type NodeInfo struct {
	ID         string
	MemoryMB   int64
	VCores     int
	UsedMB     int64 // memory of the workers placed there
	Ready      bool
	ReadyAt    time.Time
	Draining   bool
	EmptySince time.Time // meaningful while Workers is empty
	Workers    []string  // oldest first
}

// Nodes lists the nodes that exist, in provisioning order.
func (m *Model) Nodes() []NodeInfo {
	out := make([]NodeInfo, len(m.nodes))
	for i, n := range m.nodes {
		ni := NodeInfo{ID: n.id, MemoryMB: m.o.NodeMB, VCores: m.o.NodeVCores, UsedMB: n.usedMB, Ready: n.ready,
			ReadyAt: n.readyAt, Draining: n.draining, EmptySince: n.emptySince}
		for _, w := range n.workers {
			ni.Workers = append(ni.Workers, w.id)
		}
		out[i] = ni
	}
	return out
}
