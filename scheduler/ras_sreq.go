package scheduler

import (
	"math"
	"time"
)

// SReqInput is what EstimateSReq needs to know about one DAG's producers.
type SReqInput struct {
	Pending int // runnable producer tasks not yet started
	Running int // producer attempts running now
	// MeanTaskTime is the observed mean run time of the producer attempts
	// that finished; 0 while none has.
	MeanTaskTime time.Duration
	// HasGoal is false for a DAG without a completion-time goal; TimeLeft is
	// then ignored.
	HasGoal  bool
	TimeLeft time.Duration // goal minus now; zero or negative once passed
	// ReduceTime is how long the DAG's consumers (reduces) need after its
	// last producer ends; 0 when unknown. The producers must be done that
	// much before the goal.
	ReduceTime time.Duration
}

// EstimateSReq is s_req: how many producer tasks must run at once for the
// unfinished ones to be done by the goal. With n = Pending + Running,
//
//	s_req = ceil(n × MeanTaskTime / (TimeLeft - ReduceTime)), at least 1 and at most n.
//
// The producers' deadline is the goal less the reduce phase that follows
// them (Polo et al. plan the map phase to end in time for the reduces),
// so a DAG with a long reduce asks for more producers at once.
// Running attempts are counted as whole tasks: the snapshot does not say how
// far along they are, and over-asking by at most one task length errs on the
// side of the goal. The cap is n because tasks cannot run more at once than
// there are tasks. In every case where the time cannot be divided the DAG
// asks for all n at once, "as soon as possible":
//   - no goal;
//   - the goal has passed (TimeLeft <= 0), or the time left is no more
//     than the reduce phase needs: late, so as fast as it can;
//   - no producer has finished yet (MeanTaskTime = 0): without evidence no
//     smaller number can be shown to be safe; the next control cycle, after
//     the first task finishes, corrects it.
//
// Nothing unfinished gives 0.
func EstimateSReq(in SReqInput) float64 {
	n := max(in.Pending, 0) + max(in.Running, 0)
	if n == 0 {
		return 0
	}
	left := in.TimeLeft - max(in.ReduceTime, 0)
	if !in.HasGoal || left <= 0 || in.MeanTaskTime <= 0 {
		return float64(n)
	}
	// Float nanoseconds: n × mean could overflow int64, and whole
	// nanoseconds keep exact quotients (600s/300s) exact, so ceil does not
	// round 2.0000000001 up to 3.
	need := math.Ceil(float64(n) * float64(in.MeanTaskTime) / float64(left))
	return math.Min(math.Max(need, 1), float64(n))
}
