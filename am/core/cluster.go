package core

import (
	"maps"
	"time"
)

// ClusterNode is a node of the cluster as the world reports it (on YARN,
// a NodeManager from the RM's node reports).
type ClusterNode struct {
	ID         string
	CapacityMB int64
	// Types: the node's other resource types (yarn.io/gpu: 1), none when
	// absent.
	Types map[string]int64 `json:",omitempty"`
	// Label: the node's label, its partition ("": the default one).
	Label string `json:",omitempty"`
	// OthersMB: memory on the node held by containers that are not this
	// AM's workers (its own container, other applications'), when the
	// report was made. Packing counts it as used: a strict ask for room
	// that is not there waits for nothing (and on YARN leaves a
	// reservation that can keep the queue from granting other asks).
	OthersMB int64 `json:",omitempty"`
}

// SetClusterNodes tells the Core the cluster's nodes: packing then
// compares ebb.packing.min.nodes with the cluster's size, and a group's
// first workers are asked for on the node the allocator prefers. A later
// call replaces the list.
func (c *Core) SetClusterNodes(now time.Time, nodes []ClusterNode) {
	c.advance(now)
	c.cluster = make(map[string]int64, len(nodes))
	c.clusterTypes, c.clusterLabels, c.clusterOthers = nil, nil, nil
	for _, n := range nodes {
		if n.CapacityMB > 0 {
			c.cluster[n.ID] = n.CapacityMB
			c.setNodeInfo(n)
		}
	}
	c.updateWanted()
}

// setNodeInfo remembers a reported node's other resource types, its
// label and the memory others hold there.
func (c *Core) setNodeInfo(n ClusterNode) {
	if n.OthersMB > 0 {
		if c.clusterOthers == nil {
			c.clusterOthers = map[string]int64{}
		}
		c.clusterOthers[n.ID] = n.OthersMB
	} else {
		delete(c.clusterOthers, n.ID)
	}
	if n.Label == "" {
		delete(c.clusterLabels, n.ID)
	} else {
		if c.clusterLabels == nil {
			c.clusterLabels = map[string]string{}
		}
		c.clusterLabels[n.ID] = n.Label
	}
	if len(n.Types) == 0 {
		delete(c.clusterTypes, n.ID)
		return
	}
	if c.clusterTypes == nil {
		c.clusterTypes = map[string]map[string]int64{}
	}
	c.clusterTypes[n.ID] = maps.Clone(n.Types)
}

// freeTypes is how much of each resource type node id has free as far as
// this AM knows: what it reported, less its workers there (nd, nil when
// none) and the asks in flight for it.
func (c *Core) freeTypes(id string, nd *nodeRun) map[string]int64 {
	free := maps.Clone(c.clusterTypes[id])
	if free == nil {
		return nil
	}
	if nd != nil {
		for w := range nd.workers {
			if w.group == nil {
				continue
			}
			// Its container holds its kind's types: the group's.
			for name, v := range w.group.info.Resources {
				free[name] -= v
			}
		}
	}
	for _, g := range c.gorder {
		for _, a := range g.asked {
			if a.node != id {
				continue
			}
			for name, v := range g.info.Resources {
				free[name] -= v
			}
		}
	}
	return free
}

// clusterSize is the number of nodes the cluster has, as far as the Core
// knows: the reported nodes, or those holding workers when none were.
func (c *Core) clusterSize() int { return max(len(c.cluster), len(c.nodes)) }
