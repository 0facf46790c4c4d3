package packing

import "time"

// Node is one candidate in the snapshot an allocator chooses from.
type Node struct {
	ID         string // node id, e.g. "host:port"
	CapacityMB int64  // node memory
	UsedMB     int64  // memory in use on the node (containers or running attempts, whatever the caller counts)
	FitsMB     int64  // the largest request this node can take now (e.g. the freest worker of the group); fits iff Request.MemoryMB <= FitsMB
	// FreeTypes: how much of each other resource type (yarn.io/gpu) the
	// node has free now; a type absent has none. Only a request with
	// Types reads it.
	FreeTypes map[string]int64
}

// Request is one placement to decide.
type Request struct {
	MemoryMB int64
	// Types: other resource types the request needs (yarn.io/gpu: 1); a
	// node fits only with that much of each free.
	Types     map[string]int64
	Preferred []string      // locality preference (node ids); empty = none
	Waited    time.Duration // how long this request has waited so far (the caller computes it from its `now`)
	Seed      uint64        // for the random choice among low nodes; derived from the request identity so runs replay
	// ClusterNodes is how many nodes the cluster has, when the caller
	// knows (0: count the nodes offered). ebb.packing.min.nodes is about
	// the cluster's size, not about how many nodes this choice sees.
	ClusterNodes int
}

// Options are the allocator settings, already read from the configuration
// (ebb.packing.*). The zero value is valid: threshold 0 makes every used
// node "high", no minimum node count, no locality delay.
type Options struct {
	HighThresholdPercent int           // ebb.packing.high.threshold.percent, 0..100
	MinNodes             int           // ebb.packing.min.nodes: below this many nodes packed behaves like uniform
	LocalityDelay        time.Duration // ebb.packing.locality.delay.ms
}

// Allocator chooses a node for a request. Choose returns an index into
// nodes, or ok=false when no eligible node fits the request now; that is
// an answer, not a failure, and the caller keeps the request queued.
// Implementations are pure and safe for concurrent use: they keep no state
// between calls and do not modify nodes.
type Allocator interface {
	Name() string
	Choose(nodes []Node, req Request) (index int, ok bool)
}
