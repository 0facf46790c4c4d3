package core

// A reserve for newcomers (ebb.scheduler.reserve.percent). Under fifo or
// fair order a DAG that arrives while others fill every worker waits for
// a running attempt to end, and a two-second job that waits a minute has
// a slowdown of thirty. So in an autoscaled group a DAG that already runs
// attempts does not take the last share of the group's worker memory: a
// DAG that runs none may, and starts at once. The autoscaler's usage and
// work-in-sight rules see the reserve as memory not used, so they grow
// the group around it rather than the reserve starving the big DAGs.
// Under ras the plan decides shares, and without an autoscaler nothing
// would grow to cover what the reserve holds back: no reserve there.
//
// The memory a pass leaves idle while the reserve holds attempts back is
// in use as far as the autoscaler's usage is concerned (group.reserveHeld):
// on a group of one 2048 MB worker (reserve 204 MB) a second 1024 MB
// attempt held back idles half the group, and usage seen as 50% would
// never reach the scale-out threshold: the DAG ran its attempts one at a
// time (seen on the minicluster).

// reserveMB is the memory of g that DAGs already running attempts leave
// free, and the group's free memory now; 0, 0 when there is no reserve.
func (c *Core) reserveMB(g *group) (reserve, free int64) {
	p := c.opts.ReservePercent
	if p <= 0 || c.opts.Scaling != ScaleAutoscaler || c.opts.Tasks.ResourceAware() {
		return 0, 0
	}
	var offered int64
	for w := range g.workers {
		if w.draining || w.stopping {
			continue
		}
		offered += w.info.MemoryMB
		free += w.freeMB
	}
	return offered * int64(p) / 100, free
}
