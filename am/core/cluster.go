package core

import "time"

// ClusterNode is a node of the cluster as the world reports it (on YARN,
// a NodeManager from the RM's node reports).
type ClusterNode struct {
	ID         string
	CapacityMB int64
}

// SetClusterNodes tells the Core the cluster's nodes: packing then
// compares ebb.packing.min.nodes with the cluster's size, and a group's
// first workers are asked for on the node the allocator prefers. A later
// call replaces the list.
func (c *Core) SetClusterNodes(now time.Time, nodes []ClusterNode) {
	c.advance(now)
	c.cluster = make(map[string]int64, len(nodes))
	for _, n := range nodes {
		if n.CapacityMB > 0 {
			c.cluster[n.ID] = n.CapacityMB
		}
	}
	c.updateWanted()
}

// clusterSize is the number of nodes the cluster has, as far as the Core
// knows: the reported nodes, or those holding workers when none were.
func (c *Core) clusterSize() int { return max(len(c.cluster), len(c.nodes)) }
