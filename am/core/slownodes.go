package core

import "github.com/ebb-am/ebb/packing"

// Slow nodes: once an attempt of a DAG straggles on a node (speculate.go:
// its estimated run time past ebb.speculation.multiplier times its
// vertex's median), the node is slow for that DAG. LATE (Zaharia et al.,
// OSDI 2008) never launches a speculative task on a node below its
// SlowNodeThreshold; MapReduce's AM stops using, for the rest of a job,
// a node where the job's tasks keep failing
// (mapreduce.job.maxtaskfailures.per.tracker). A slow node is the same
// evidence of a different trouble: the DAG's later attempts (the next
// stage's, retries) would be as slow there, so they go elsewhere while a
// node off the slow ones has room; with none, an attempt waits for one as
// delay scheduling waits for a local node (ebb.packing.locality.delay.ms),
// then takes a slow node: a slow node is better than a long queue. The evidence is the DAG's
// own and ends with it, so a node slow for a while is not shunned for the
// rest of a session.

// markSlow records that an attempt of d straggles on n.
func (d *dagRun) markSlow(n *nodeRun) {
	if d.slowNodes == nil {
		d.slowNodes = map[string]struct{}{}
	}
	d.slowNodes[n.id] = struct{}{}
}

// slowNodeList is d's slow nodes, sorted (nil: none).
func (d *dagRun) slowNodeList() []string {
	if len(d.slowNodes) == 0 {
		return nil
	}
	return sortedKeys(d.slowNodes)
}

// slow reports whether an attempt of d straggled on node id.
func (d *dagRun) slow(id string) bool {
	_, ok := d.slowNodes[id]
	return ok
}

// offSlowNodes is the allocator's view for an attempt of mem MB of d: the
// slow nodes shown with no room (FitsMB -1) while wait holds (the attempt
// has waited less than SpeculationOptions.SlowNodeWait, delay scheduling's
// wait for a better node) or a node off them fits mem; else nodes as they
// are. nodes is not changed; with no slow node it is returned itself, at
// no cost.
func offSlowNodes(nodes []packing.Node, d *dagRun, mem int64, wait bool) []packing.Node {
	if len(d.slowNodes) == 0 {
		return nodes
	}
	elsewhere := wait
	for i := 0; i < len(nodes) && !elsewhere; i++ {
		elsewhere = !d.slow(nodes[i].ID) && nodes[i].FitsMB >= mem
	}
	if !elsewhere {
		return nodes
	}
	return hideNodes(nodes, func(i int) bool { return d.slow(nodes[i].ID) })
}
