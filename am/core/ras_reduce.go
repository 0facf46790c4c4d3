package core

import (
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// reducePhase is how long d's consumers run after its last producer: what
// s_req leaves them before the goal (scheduler.SReqInput.ReduceTime). RAS
// plans from job profiles known before the run (Polo et al. profile each
// application offline); the only such profile of a consumer's duration a
// spec carries is its sim durations, so on YARN this is 0 and s_req plans
// the producers alone, as before. The longest consumer vertex counts.
func reducePhase(d *dagRun) time.Duration {
	var longest time.Duration
	for _, v := range d.vertices {
		if v.rasKind() != scheduler.RASConsumer || len(v.spec.SimDurations) == 0 {
			continue
		}
		var sum time.Duration
		for _, x := range v.spec.SimDurations {
			sum += x.D()
		}
		longest = max(longest, sum/time.Duration(len(v.spec.SimDurations)))
	}
	return longest
}
