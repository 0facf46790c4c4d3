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
	Cost                fixed  `json:"cost"`
	MeanJCT             fixed  `json:"mean_jct_secs"`
	P95JCT              fixed  `json:"p95_jct_secs"`
	P95Slowdown         fixed  `json:"p95_slowdown"`
	JobsWithGoals       int    `json:"jobs_with_goals"`
	GoalAttainment      fixed  `json:"goal_attainment"`
	MeanUtilisation     fixed  `json:"mean_utilisation"`
	LowerBoundNodeHours fixed  `json:"lower_bound_node_hours"`
	RatioToLowerBound   fixed  `json:"ratio_to_lower_bound"`
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
	Policies  []jsonPolicy `json:"policies"`
}

// WriteJSON writes the report as one indented JSON object, the same bytes
// for the same report.
func (r Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Reference: r.Reference, Policies: []jsonPolicy{}}
	for i, s := range r.Policies {
		var jobs []JobResult
		if i < len(r.runs) {
			jobs = r.runs[i].Jobs
		}
		out.Policies = append(out.Policies, jsonPolicy{
			Policy: s.Policy, Jobs: s.Jobs, JobsCompleted: s.JobsCompleted,
			NodeHours: fixed(s.NodeHours), Cost: fixed(s.Cost),
			MeanJCT: fixed(s.MeanJCT), P95JCT: fixed(s.P95JCT), P95Slowdown: fixed(s.P95Slowdown),
			JobsWithGoals: s.JobsWithGoals, GoalAttainment: fixed(s.GoalAttainment),
			MeanUtilisation:     fixed(s.MeanUtilisation),
			LowerBoundNodeHours: fixed(s.LowerBoundNodeHours), RatioToLowerBound: fixed(s.RatioToLowerBound),
			Makespan: fixed(s.Makespan), JobResults: jsonJobs(jobs),
		})
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
	_, _ = fmt.Fprintln(tw, "policy\tjobs done\tmakespan s\tnode-h\tcost\tmean JCT s\tp95 JCT s\tp95 slowdown\tgoals met\tmean util\tLB node-h\tx LB\t")
	for _, s := range r.Policies {
		goals := "-"
		if s.JobsWithGoals > 0 {
			goals = fmt.Sprintf("%s of %d", percent(s.GoalAttainment), s.JobsWithGoals)
		}
		_, _ = fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Policy, s.JobsCompleted, s.Jobs,
			num(s.Makespan, 0), num(s.NodeHours, 2), num(s.Cost, 2), num(s.MeanJCT, 1), num(s.P95JCT, 1), num(s.P95Slowdown, 2),
			goals, percent(s.MeanUtilisation), num(s.LowerBoundNodeHours, 2), num(s.RatioToLowerBound, 2))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	ref := r.Reference
	if ref == "" {
		ref = "no reference run"
	}
	_, err := fmt.Fprintf(w, "slowdown against %s; LB = lower bound on node-hours (task memory x time / node memory)\n", ref)
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
