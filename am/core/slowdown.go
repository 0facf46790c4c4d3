package core

import "time"

// The latency target's feedback (scheduler/autoscale_target.go): each DAG
// that succeeds tells its group's autoscaler how long it took and its
// critical path, so the autoscaler can see the slowdowns it promised.

// criticalPath is a DAG's critical path as measured: the longest chain,
// along its edges, of its vertices' slowest succeeded attempts. It is what
// the DAG would take with a worker ready for every task the moment its
// inputs are (the sim's oracle's JCT, up to one-to-one edges, which it
// counts as all-to-all). 0 when a vertex has no succeeded attempt (a DAG
// recovered from the log, say): nothing to measure against.
func criticalPath(d *dagRun) time.Duration {
	end := make(map[*vertexRun]time.Duration, len(d.byTopo))
	var path time.Duration
	for _, v := range d.byTopo {
		if v.doneN == 0 {
			return 0
		}
		var ready time.Duration
		for _, e := range v.in {
			ready = max(ready, end[e.other])
		}
		end[v] = ready + v.doneMax
		path = max(path, end[v])
	}
	return path
}

// observeSlowdown reports a succeeded DAG to its group's autoscaler. A
// DAG submitted before the group's first worker joined is not reported:
// it waited for the cold start, which the promise does not cover (the
// sim's bound is the target times the cold-start floor), and counting
// its miss would make the autoscaler pay all day for the first boot.
func (c *Core) observeSlowdown(d *dagRun) {
	if d.state != DAGSucceeded || d.recovered || d.group == nil || d.group.as == nil {
		return
	}
	if g := d.group; g.warmSince.IsZero() || d.submit.Before(g.warmSince) {
		return
	}
	d.group.as.a.ObserveDAG(d.finish.Sub(d.submit), criticalPath(d))
}
