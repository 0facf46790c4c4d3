package core

import "time"

// The autoscaler's estimate of the work in sight (Qubole's 2012 design:
// scale from the pending tasks and the progress of the running ones, per
// kind of job). A kind is a vertex: its attempts do the same work on
// similar shares of input, so their finished durations predict the rest
// far better than a mean over every kind. Work is memory × time (MB·s),
// the unit the autoscaler sizes workers in.

// estimate is an attempt's expected duration: its vertex's mean, else its
// DAG's, else the group's running DAGs' (fallback); ok is false when
// nothing of the kind has finished anywhere yet.
func estimate(v *vertexRun, fallback time.Duration) (time.Duration, bool) {
	switch {
	case v.doneN > 0:
		return v.doneTime / time.Duration(v.doneN), true
	case v.dag.attemptsDone > 0:
		return v.dag.attemptTime / time.Duration(v.dag.attemptsDone), true
	case fallback > 0:
		return fallback, true
	}
	return 0, false
}

// remaining is how much longer a running attempt is expected to take: from
// its reported progress when it has one (elapsed × (1 − p) / p), else its
// kind's expected duration less the time it has run, at least 0.
func remaining(a *attemptRun, est time.Duration, now time.Time) time.Duration {
	ran := now.Sub(a.started)
	if a.progress > 0 && a.progress < 1 {
		return time.Duration(float64(ran) * (1 - a.progress) / a.progress)
	}
	return max(est-ran, 0)
}

// mbSecs is memory × time in MB·s.
func mbSecs(mb int64, d time.Duration) float64 { return float64(mb) * d.Seconds() }

// estimateWork fills the snapshot's work figures: the queued tasks' work,
// the running attempts' remaining work, and the work of tasks still
// waiting for their inputs (predicted to arrive), each only for the kinds
// with an estimate; UnknownQueued counts queued attempts without one. Per
// node it sets the longest remaining time of the attempts there, which is
// how long a drain of that node takes.
func (c *Core) estimateWork(g *group, s *groupSnap) {
	fallback := s.MeanAttemptDuration
	for d := range g.owners {
		if d.state.Done() {
			continue
		}
		for _, v := range d.vertices {
			est, ok := estimate(v, fallback)
			for _, t := range v.tasks {
				switch t.state {
				case taskQueued:
					if !ok {
						s.UnknownQueued++
						continue
					}
					s.QueuedWork += mbSecs(v.spec.MemoryMB, est)
				case taskWaiting:
					if ok {
						s.WaitingWork += mbSecs(v.spec.MemoryMB, est)
					}
				}
			}
		}
	}
	left := map[string]time.Duration{}
	for w := range g.workers {
		if w.draining {
			continue
		}
		for _, a := range w.running {
			est, _ := estimate(a.task.vertex, fallback)
			r := remaining(a, est, c.now)
			s.RunningWork += mbSecs(a.memoryMB(), r)
			left[w.node.id] = max(left[w.node.id], r)
		}
	}
	for i := range s.Nodes {
		s.Nodes[i].Remaining = left[s.Nodes[i].ID]
	}
	s.RoomWorkers = c.roomWorkers(g)
}

// roomWorkers is how many more of the group's workers fit on the nodes
// this AM already holds (not draining): workers that start without a node
// having to boot.
func (c *Core) roomWorkers(g *group) int {
	size := g.info.MemoryMB
	if size <= 0 {
		return 0
	}
	n := 0
	for _, nd := range c.nodes {
		if nd.draining {
			continue
		}
		free := nd.capacityMB
		for w := range nd.workers {
			free -= w.info.MemoryMB
		}
		n += int(max(free, 0) / size)
	}
	return n
}
