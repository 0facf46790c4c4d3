package scheduler

import "math"

// UtilityFloor stands for the -inf the paper's utility reaches when a DAG
// that needs tasks has none: a finite value, so that max-min comparisons
// still rank "nothing" below every real allocation, ties among starving DAGs
// can be broken by submission order, and the plan can be encoded as JSON.
// With whole tasks the lowest real producer utility is -1 (one task), so
// any floor below -2 keeps the ranking; the consumer term may take a total
// one lower still, to UtilityFloor-1.
const UtilityFloor = -1000.0

// Utility is how well an allocation serves a DAG's completion-time goal
// (Polo et al., Middleware 2011, section 3.2). sAlloc producer tasks are
// allocated, sReq are needed to meet the goal (EstimateSReq), sPend are not
// yet finished (running or waiting); rAlloc of rPend unfinished consumer
// tasks are placed.
//
// Producer part, u:
//
//	sAlloc < sReq:            log(sAlloc)/log(sReq) - 1   from -inf (UtilityFloor) at 0 up to 0 at sReq
//	sReq <= sAlloc < sPend:   (sAlloc-sReq)/(sPend-sReq)  from 0 at sReq up to 1 at sPend
//	sAlloc >= sPend:          1                           (capped: more tasks than are left do not help)
//
// Consumer part, in [-1, 0]: log(rAlloc)/log(rPend) - 1, so unplaced
// consumers cost up to a whole unit and placed ones nothing.
//
// Edge cases, where the formulas divide by zero or take log(0):
//   - sAlloc <= 0 below sReq: UtilityFloor; results below it are raised to it.
//   - sReq <= 1: log(sReq) <= 0 and the log segment is empty; with whole tasks
//     only sAlloc = 0 lies below sReq, so any sAlloc < sReq counts as none
//     (UtilityFloor) and any sAlloc >= sReq is on the linear segment.
//   - sPend <= sReq (all that is left is needed, e.g. sPend = sReq): the
//     linear segment has no width; reaching sReq is reaching 1.
//   - sReq > sPend: read as sPend, since no allocation can exceed what is
//     left; running every unfinished task scores 1.
//   - nothing pending (sPend = 0): 1, the DAG wants nothing.
//   - rPend <= 0: no consumers, the part is 0. rPend <= 1: log(rPend) <= 0,
//     so the part is 0 once rAlloc >= rPend and -1 before.
//
// Negative arguments are read as 0.
func Utility(sAlloc, sReq, sPend, rAlloc, rPend float64) float64 {
	return producerUtility(nonNeg(sAlloc), nonNeg(sReq), nonNeg(sPend)) +
		consumerUtility(nonNeg(rAlloc), nonNeg(rPend))
}

func producerUtility(sAlloc, sReq, sPend float64) float64 {
	// Running every unfinished task is all a DAG can use, whatever it needs.
	sReq = math.Min(sReq, sPend)
	if sAlloc < sReq {
		if sAlloc <= 0 || sReq <= 1 {
			return UtilityFloor
		}
		return math.Max(UtilityFloor, math.Log(sAlloc)/math.Log(sReq)-1)
	}
	if sAlloc >= sPend || sPend <= sReq {
		return 1
	}
	return (sAlloc - sReq) / (sPend - sReq)
}

func consumerUtility(rAlloc, rPend float64) float64 {
	switch {
	case rAlloc >= rPend:
		return 0
	case rAlloc <= 0 || rPend <= 1:
		return -1
	}
	return math.Max(-1, math.Log(rAlloc)/math.Log(rPend)-1)
}

// nonNeg reads negative and NaN counts as 0.
func nonNeg(x float64) float64 {
	if x > 0 {
		return x
	}
	return 0
}
