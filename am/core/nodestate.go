package core

import (
	"fmt"
	"sort"
	"time"
)

// NodeState is a node's state as the cluster reports it after start-up
// (YARN: the allocate response's updated_nodes). Only NodeRunning takes
// new work; every other state drains the node.
type NodeState int

const (
	// NodeRunning: usable, also a node recommissioned or healthy again.
	NodeRunning NodeState = iota
	// NodeDecommissioning: leaving gracefully; the cluster kills what
	// still runs there when its timeout ends. Drained like a scale-in.
	NodeDecommissioning
	// NodeUnhealthy: the node's health check fails; nothing is placed
	// there until it reports RUNNING again.
	NodeUnhealthy
	// NodeDecommissioned, NodeLost, NodeShutdown, NodeRebooted: gone
	// (its containers are lost or about to be).
	NodeDecommissioned
	NodeLost
	NodeShutdown
	NodeRebooted
	// NodeNew: registered but not yet running.
	NodeNew
)

var nodeStateNames = [...]string{"RUNNING", "DECOMMISSIONING", "UNHEALTHY", "DECOMMISSIONED", "LOST", "SHUTDOWN", "REBOOTED", "NEW"}

func (s NodeState) String() string {
	if s < 0 || int(s) >= len(nodeStateNames) {
		return fmt.Sprintf("NodeState(%d)", int(s))
	}
	return nodeStateNames[s]
}

// MarshalText writes the state by name (the event log, the API).
func (s NodeState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText is MarshalText's inverse.
func (s *NodeState) UnmarshalText(b []byte) error {
	for i, n := range nodeStateNames {
		if n == string(b) {
			*s = NodeState(i)
			return nil
		}
	}
	return fmt.Errorf("unknown node state %q", b)
}

// nodeCond is a node the cluster reports not RUNNING.
type nodeCond struct {
	reported NodeState
	since    time.Time
	// drainBy: when the cluster's decommissioning timeout ends (zero when
	// it gave none): what runs there after it is killed.
	drainBy time.Time
}

// NodeChanged: the cluster reports a node's new state. DrainTimeout is
// the decommissioning timeout it gives (0 = none given); Node.CapacityMB,
// when set, updates the node's size (a node that joins or comes back).
type NodeChanged struct {
	Node         ClusterNode
	State        NodeState
	DrainTimeout time.Duration
}

func (NodeChanged) event() {}

// NodeStateChanged applies a node's new state: any state but RUNNING
// stops new attempts and new workers there and stops each worker there as
// soon as no running DAG needs what it holds (DrainNode, without waiting
// for DAGs: the cluster will not wait); RUNNING again lifts a drain the
// cluster's state caused (a scale-in or a blacklist stays).
func (c *Core) NodeStateChanged(now time.Time, e NodeChanged) {
	c.advance(now)
	id := e.Node.ID
	if c.nodeConds == nil {
		c.nodeConds = map[string]*nodeCond{}
	}
	old := c.nodeConds[id]
	if e.State == NodeRunning {
		if e.Node.CapacityMB > 0 {
			c.cluster[id] = e.Node.CapacityMB
			c.setNodeInfo(e.Node)
		}
		if old == nil {
			return
		}
		delete(c.nodeConds, id)
		c.logf("node %s is RUNNING again (was %s)", id, old.reported)
		c.undrainNode(id)
		c.resendWants()
		c.schedule()
		return
	}
	if old != nil && old.reported == e.State {
		return
	}
	nc := &nodeCond{reported: e.State, since: c.now}
	if e.DrainTimeout > 0 {
		nc.drainBy = c.now.Add(e.DrainTimeout)
	}
	c.nodeConds[id] = nc
	delete(c.cluster, id) // packing no longer counts it or prefers it
	c.warnf("node %s is %s: no new work there", id, e.State)
	c.drainForState(id)
	c.resendWants()
}

// drainForState drains node id because of its cluster state: now, without
// waiting for the DAGs a scale-in of it may have been waiting for.
func (c *Core) drainForState(id string) {
	nc := c.nodeConds[id]
	n := c.nodes[id]
	if nc == nil || n == nil {
		return
	}
	why := fmt.Sprintf("cluster reports it %s", nc.reported)
	if !nc.drainBy.IsZero() {
		why += fmt.Sprintf(", killed at %s", nc.drainBy.UTC().Format(time.RFC3339))
	}
	if n.draining {
		// Already leaving (scale-in, blacklist): stop waiting for DAGs.
		n.drain.waitFor = nil
		delete(c.waitingDrains, n)
		c.stopDrained()
		return
	}
	c.DrainNode(c.now, id, why, false)
	n.drain.byState = true
}

// undrainNode lifts a drain the node's state caused: its workers that
// are not stopping take attempts again.
func (c *Core) undrainNode(id string) {
	n := c.nodes[id]
	if n == nil || !n.draining || n.drain == nil || !n.drain.byState {
		return
	}
	n.draining = false
	c.ndraining--
	n.drain = nil
	ws := make([]*workerRun, 0, len(n.workers))
	for w := range n.workers {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].info.ID < ws[j].info.ID })
	for _, w := range ws {
		if w.draining && !w.stopping && w.recycleTo == nil {
			w.group.unmarkDraining(w)
		}
	}
}

// unmarkDraining is markDraining's inverse, for a node back in use.
func (g *group) unmarkDraining(w *workerRun) {
	if w.draining {
		w.draining = false
		g.unavail--
	}
	g.workerChanged(w)
}

// resendWants tells the world every group's total again, so that its
// Avoid list (the nodes no new worker may go to) follows the change even
// when no total changed.
func (c *Core) resendWants() {
	for _, g := range c.gorder {
		g.wanted = -1
	}
	c.updateWanted()
}

// unusableNodes lists the nodes the cluster reports not RUNNING.
func (c *Core) unusableNodes() []string {
	return sortedKeys(c.nodeConds)
}

// nodeCondOf is the reported state of a node and when its drain must be
// done (NodeRunning, zero for a node the cluster says nothing against).
func (c *Core) nodeCondOf(id string) (NodeState, time.Time) {
	if nc := c.nodeConds[id]; nc != nil {
		return nc.reported, nc.drainBy
	}
	return NodeRunning, time.Time{}
}

// workerUnhealthy: a worker reports its local directories full. Its node
// is taken as the cluster's UNHEALTHY nodes are: nothing more is placed
// there, and its workers stop once no running DAG needs what they hold
// (the outputs they serve are read first, or recomputed if they go). It
// stays so until the cluster reports the node RUNNING.
func (c *Core) workerUnhealthy(id, why string) {
	w, ok := c.workers[id]
	if !ok {
		return
	}
	node := w.node.id
	if nc := c.nodeConds[node]; nc != nil && nc.reported == NodeUnhealthy {
		return
	}
	c.warnf("worker %s reports itself unhealthy (%s): node %s takes no more work", id, why, node)
	c.NodeStateChanged(c.now, NodeChanged{Node: ClusterNode{ID: node}, State: NodeUnhealthy})
}
