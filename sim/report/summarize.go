package report

import (
	"math"
	"strings"
)

// Report is the figures of every policy, in the order the runs were given.
type Report struct {
	// Reference is the policy slowdowns are measured against ("" when
	// none of the runs matched the requested one).
	Reference string
	// Oracle is the run costs are measured against ("" when there is no
	// run of the oracle policy).
	Oracle   string
	Policies []Summary
	runs     []Run // for the plots
}

// Summary is one policy's figures. Times are in seconds.
type Summary struct {
	Policy              string
	Jobs                int
	JobsCompleted       int
	NodeHours           float64
	PaidHours           float64 // node-hours as billed
	Cost                float64
	CostToOracle        float64 // cost / the oracle's cost
	MeanJCT             float64
	P95JCT              float64
	P95Slowdown         float64
	P95SlowdownFloor    float64 // the least p95 slowdown the run's first node allows (floor.go)
	JobsWithGoals       int
	GoalAttainment      float64
	MeanUtilisation     float64
	LowerBoundNodeHours float64
	RatioToLowerBound   float64 // node-hours / lower bound
	RatioPaidToLB       float64 // paid hours / lower bound
	// Makespan: from the trace's start to the last job's end (seconds).
	Makespan float64
}

// OraclePolicy is the clairvoyant policy's name: costs are reported as a
// multiple of its cost.
const OraclePolicy = "oracle"

// Summarize computes each run's figures. reference names the run that
// slowdowns are measured against: an exact policy name, or else the first
// run whose name starts with reference + "-" (so "static" finds
// "static-40").
//
// Costs are measured against the run of the policy named OraclePolicy,
// when there is one.
func Summarize(runs []Run, reference string) Report {
	ref := findReference(runs, reference)
	r := Report{runs: runs}
	oracleCost := math.NaN()
	for _, run := range runs {
		if run.Policy == OraclePolicy {
			r.Oracle, oracleCost = run.Policy, run.Cost
			break
		}
	}
	var refJCT map[string]float64
	if ref != nil {
		r.Reference = ref.Policy
		refJCT = map[string]float64{}
		for _, j := range ref.Jobs {
			if j.Completed {
				refJCT[j.ID] = j.JCT().Seconds()
			}
		}
	}
	for _, run := range runs {
		s := summarize(run, refJCT)
		s.CostToOracle = ratio(s.Cost, oracleCost)
		r.Policies = append(r.Policies, s)
	}
	return r
}

func findReference(runs []Run, name string) *Run {
	if name == "" {
		return nil
	}
	for i := range runs {
		if runs[i].Policy == name {
			return &runs[i]
		}
	}
	for i := range runs {
		if strings.HasPrefix(runs[i].Policy, name+"-") {
			return &runs[i]
		}
	}
	return nil
}

// summarize is one run's figures; refJCT (nil: no reference) maps job ids
// to their JCT in the reference run.
func summarize(run Run, refJCT map[string]float64) Summary {
	s := Summary{Policy: run.Policy, Jobs: len(run.Jobs), NodeHours: run.NodeSeconds / 3600,
		PaidHours: run.PaidSeconds / 3600, Cost: run.Cost}
	var jcts, slowdowns []float64
	met := 0
	for _, j := range run.Jobs {
		if j.Goal > 0 {
			s.JobsWithGoals++
			if j.Completed && j.JCT() <= j.Goal {
				met++
			}
		}
		if !j.Completed {
			continue
		}
		s.JobsCompleted++
		s.Makespan = math.Max(s.Makespan, j.Finish.Seconds())
		jct := j.JCT().Seconds()
		jcts = append(jcts, jct)
		if ref, ok := refJCT[j.ID]; ok && ref > 0 {
			slowdowns = append(slowdowns, jct/ref)
		}
	}
	s.MeanJCT = Mean(jcts)
	s.P95JCT = Percentile(jcts, 95)
	s.P95Slowdown = math.NaN()
	s.P95SlowdownFloor = math.NaN()
	if refJCT != nil {
		s.P95Slowdown = Percentile(slowdowns, 95)
		s.P95SlowdownFloor = slowdownFloor(run, refJCT)
	}
	s.GoalAttainment = ratio(float64(met), float64(s.JobsWithGoals))
	var used, capacity float64
	for _, x := range run.Samples {
		used += float64(x.UsedMB)
		capacity += float64(x.CapacityMB)
	}
	s.MeanUtilisation = ratio(used, capacity)
	s.LowerBoundNodeHours = ratio(run.TaskMBSeconds, float64(run.NodeMemoryMB)) / 3600
	s.RatioToLowerBound = ratio(s.NodeHours, s.LowerBoundNodeHours)
	s.RatioPaidToLB = ratio(s.PaidHours, s.LowerBoundNodeHours)
	return s
}
