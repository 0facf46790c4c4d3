package report

// The cold-start floor. A policy that starts with no node runs nothing
// before its first node is up, FirstNode after the trace starts. A job
// submitted at s with reference time r (its time on the reference
// cluster, taken as the fastest it can run) then finishes no sooner than
// max(s, FirstNode) + r, so its slowdown is at least
//
//	(max(s, FirstNode) − s + r) / r
//
// and the p95 of these is the least p95 slowdown any such policy can
// reach, however it scales: when a trace's first minutes hold more than
// 5% of its jobs (Decima's 154 jobs, 25 s apart, against a 3-minute
// boot), no online policy starting cold can reach a p95 of 2. Only a
// cluster there from the start (static, the oracle) has floor 1.

// slowdownFloor is the nearest-rank p95 of the jobs' least slowdowns, over
// the jobs the reference completed.
func slowdownFloor(run Run, refJCT map[string]float64) float64 {
	first := run.FirstNode.Seconds()
	var floors []float64
	for _, j := range run.Jobs {
		ref, ok := refJCT[j.ID]
		if !ok || ref <= 0 {
			continue
		}
		wait := max(first-j.Submit.Seconds(), 0)
		floors = append(floors, (wait+ref)/ref)
	}
	return Percentile(floors, 95)
}
