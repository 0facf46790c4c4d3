package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
)

// fixed is a float written with six decimals, or null when NaN or
// infinite, so the JSON never depends on a float's shortest form.
type fixed float64

func (f fixed) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	if v == 0 {
		v = 0 // no "-0.000000"
	}
	return strconv.AppendFloat(nil, v, 'f', 6, 64), nil
}

// jsonPolicy fixes the JSON keys and their order.
type jsonPolicy struct {
	Policy              string `json:"policy"`
	Jobs                int    `json:"jobs"`
	JobsCompleted       int    `json:"jobs_completed"`
	NodeHours           fixed  `json:"node_hours"`
	PaidHours           fixed  `json:"paid_hours"`
	Cost                fixed  `json:"cost"`
	CostToOracle        fixed  `json:"cost_to_oracle"`
	MeanJCT             fixed  `json:"mean_jct_secs"`
	P95JCT              fixed  `json:"p95_jct_secs"`
	P95Slowdown         fixed  `json:"p95_slowdown"`
	P95SlowdownFloor    fixed  `json:"p95_slowdown_floor"`
	JobsWithGoals       int    `json:"jobs_with_goals"`
	GoalAttainment      fixed  `json:"goal_attainment"`
	MeanUtilisation     fixed  `json:"mean_utilisation"`
	LowerBoundNodeHours fixed  `json:"lower_bound_node_hours"`
	RatioToLowerBound   fixed  `json:"ratio_to_lower_bound"`
	RatioPaidToLB       fixed  `json:"ratio_paid_to_lower_bound"`
	Makespan            fixed  `json:"makespan_secs"`
	// JobResults: each job, so a script can judge goals job by job.
	JobResults []jsonJob `json:"job_results"`
}

// jsonJob is one job's result. Times are seconds from the run's start;
// goal_secs is the job's deadline (submission + its goal), null without a
// goal, and so is met; finish_secs is null for a job that did not
// complete.
type jsonJob struct {
	ID        string `json:"id"`
	Submit    fixed  `json:"submit_secs"`
	Finish    *fixed `json:"finish_secs"`
	Goal      *fixed `json:"goal_secs"`
	Completed bool   `json:"completed"`
	Met       *bool  `json:"met"`
}

func jsonJobs(js []JobResult) []jsonJob {
	out := make([]jsonJob, 0, len(js))
	for _, j := range js {
		o := jsonJob{ID: j.ID, Submit: fixed(j.Submit.Seconds()), Completed: j.Completed}
		if j.Completed {
			f := fixed(j.Finish.Seconds())
			o.Finish = &f
		}
		if j.Goal > 0 {
			g, met := fixed((j.Submit + j.Goal).Seconds()), j.Met()
			o.Goal, o.Met = &g, &met
		}
		out = append(out, o)
	}
	return out
}

type jsonReport struct {
	Reference string       `json:"reference"`
	Oracle    string       `json:"oracle"`
	Policies  []jsonPolicy `json:"policies"`
}

func toJSON(s Summary) jsonPolicy {
	return jsonPolicy{
		Policy: s.Policy, Jobs: s.Jobs, JobsCompleted: s.JobsCompleted,
		NodeHours: fixed(s.NodeHours), PaidHours: fixed(s.PaidHours),
		Cost: fixed(s.Cost), CostToOracle: fixed(s.CostToOracle),
		MeanJCT: fixed(s.MeanJCT), P95JCT: fixed(s.P95JCT),
		P95Slowdown: fixed(s.P95Slowdown), P95SlowdownFloor: fixed(s.P95SlowdownFloor),
		JobsWithGoals: s.JobsWithGoals, GoalAttainment: fixed(s.GoalAttainment),
		MeanUtilisation:     fixed(s.MeanUtilisation),
		LowerBoundNodeHours: fixed(s.LowerBoundNodeHours), RatioToLowerBound: fixed(s.RatioToLowerBound),
		RatioPaidToLB: fixed(s.RatioPaidToLB),
		Makespan:      fixed(s.Makespan),
	}
}

// WriteJSON writes the report as one indented JSON object, the same bytes
// for the same report.
func (r Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Reference: r.Reference, Oracle: r.Oracle, Policies: []jsonPolicy{}}
	for i, s := range r.Policies {
		p := toJSON(s)
		var jobs []JobResult
		if i < len(r.runs) {
			jobs = r.runs[i].Jobs
		}
		p.JobResults = jsonJobs(jobs)
		out.Policies = append(out.Policies, p)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteTable writes the report as aligned columns for people.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// tabwriter buffers every row; Flush reports a write error.
	_, _ = fmt.Fprintln(tw, "policy\tjobs done\tmakespan s\tnode-h\tpaid h\tcost\tx oracle\tmean JCT s\tp95 JCT s\tp95 slowdown\tp95 floor\tgoals met\tmean util\tLB node-h\tpaid x LB\t")
	for _, s := range r.Policies {
		goals := "-"
		if s.JobsWithGoals > 0 {
			goals = fmt.Sprintf("%s of %d", percent(s.GoalAttainment), s.JobsWithGoals)
		}
		_, _ = fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Policy, s.JobsCompleted, s.Jobs,
			num(s.Makespan, 0), num(s.NodeHours, 2), num(s.PaidHours, 2), num(s.Cost, 2), num(s.CostToOracle, 2),
			num(s.MeanJCT, 1), num(s.P95JCT, 1), num(s.P95Slowdown, 2), num(s.P95SlowdownFloor, 2),
			goals, percent(s.MeanUtilisation), num(s.LowerBoundNodeHours, 2), num(s.RatioPaidToLB, 2))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	ref := r.Reference
	if ref == "" {
		ref = "no reference run"
	}
	orc := r.Oracle
	if orc == "" {
		orc = "no oracle run"
	}
	_, err := fmt.Fprintf(w, "slowdown against %s; cost against %s; paid h = node-hours as billed; p95 floor = the least p95 slowdown a policy can reach that has no node until its first boots; LB = lower bound on node-hours (task reservation x time / node memory)\n", ref, orc)
	return err
}

func num(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}
