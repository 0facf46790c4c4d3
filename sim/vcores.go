package sim

import "github.com/ebb-am/ebb/dag"

// vCores are enforced through memory. The AM core places attempts by
// memory alone, so every task reserves
//
//	max(its memory, its vcores × node MB / node vcores)
//
// (at most a whole node): a node then never runs more vcores than it has,
// whatever mix of tasks it holds. On the default 64 GB / 16 vcore node a
// 1 GB, 1 vcore SWIM map reserves 4096 MB, so a node runs 16 maps at once,
// not 64. The lower bound is computed from the same reservations, so it
// is the dominant-resource bound: what perfectly packed nodes would pay
// when both memory and vcores must fit.
//
// Per-task vcores by model: SWIM maps and reduces 1; Alibaba 2017 the
// trace's CPU rounded up to whole cores (at least 1); Decima TPC-H 1; ebb
// CSV 1; ebb JSON scenarios the vertex's vcores (at least 1).
func (c Config) reservedMB(v dag.VertexSpec) int64 {
	nodeMB, nodeV := c.nodeMB(), int64(max(c.nodeVCores(), 1))
	byCores := (int64(max(v.VCores, 1))*nodeMB + nodeV - 1) / nodeV
	return min(max(v.MemoryMB, byCores), nodeMB)
}

// reservedMB is what a task of v reserves under policy p: the vcore rule
// above, except for the fixed-cluster experiments with one node-sized
// worker per node (ras, fair-slots-K), whose concurrency the scheduler
// decides by design, from the resource profiles' CPU and I/O shares or
// from the slot count, which is what vcores would bound.
func (p Policy) reservedMB(c Config, v dag.VertexSpec) int64 {
	if p.NodeWorkers {
		return v.MemoryMB
	}
	return c.reservedMB(v)
}
