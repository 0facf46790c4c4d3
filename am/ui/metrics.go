package ui

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// durationBuckets are the attempt-duration histogram's upper bounds in
// seconds: from sub-second tasks to hour-long ones.
var durationBuckets = []float64{0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

// metrics writes Prometheus text: the old gauges, then per-DAG and
// per-vertex task counters, the attempt-duration histogram, autoscaler
// transitions by reason and worker moves.
func (u *UI) metrics(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	if err := u.read(r, func(v View) { u.writeMetrics(&b, v) }); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if u.o.ExtraMetrics != nil {
		u.o.ExtraMetrics(&b)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	writeBody(w, []byte(b.String()))
}

// writeBackups sums speculative execution's backup attempts over the DAGs
// the AM still lists (compacted ones too).
func writeBackups(b *strings.Builder, dags []DAG) {
	var s Backups
	for _, d := range dags {
		if d.Backups != nil {
			s.Launched += d.Backups.Launched
			s.Won += d.Backups.Won
			s.Lost += d.Backups.Lost
		}
	}
	WriteHelp(b, "ebb_speculative_attempts_total")
	fmt.Fprintf(b, "ebb_speculative_attempts_total{outcome=\"launched\"} %d\n", s.Launched)
	fmt.Fprintf(b, "ebb_speculative_attempts_total{outcome=\"won\"} %d\n", s.Won)
	fmt.Fprintf(b, "ebb_speculative_attempts_total{outcome=\"lost\"} %d\n", s.Lost)
}

func (u *UI) writeMetrics(b *strings.Builder, v View) {
	o := u.overview(v)
	counts := map[string]int{}
	for _, d := range o.DAGs {
		counts[d.State]++
	}
	WriteHelp(b, "ebb_dags")
	for _, st := range []string{"SUBMITTED", "RUNNING", "SUCCEEDED", "FAILED", "KILLED"} {
		fmt.Fprintf(b, "ebb_dags{state=%q} %d\n", st, counts[st])
	}
	// Per-DAG series only for the DAGs kept whole: a compacted DAG's are
	// final, and a long session would otherwise grow label sets for ever.
	var whole []DAG
	for _, d := range o.DAGs {
		if !d.Compacted {
			whole = append(whole, d)
		}
	}
	WriteHelp(b, "ebb_dag_tasks")
	for _, d := range whole {
		fmt.Fprintf(b, "ebb_dag_tasks{dag=%q,name=%q,state=\"succeeded\"} %d\n", d.ID, d.Name, d.Succeeded)
		fmt.Fprintf(b, "ebb_dag_tasks{dag=%q,name=%q,state=\"running\"} %d\n", d.ID, d.Name, d.Running)
		fmt.Fprintf(b, "ebb_dag_tasks{dag=%q,name=%q,state=\"total\"} %d\n", d.ID, d.Name, d.Tasks)
	}
	WriteHelp(b, "ebb_dag_failed_attempts_total")
	for _, d := range whole {
		fmt.Fprintf(b, "ebb_dag_failed_attempts_total{dag=%q} %d\n", d.ID, d.FailedAttempts)
	}
	writeBackups(b, o.DAGs)
	WriteHelp(b, "ebb_vertex_tasks")
	for _, d := range v.DAGs() {
		for _, vs := range d.Vertices {
			fmt.Fprintf(b, "ebb_vertex_tasks{dag=%q,vertex=%q,state=\"succeeded\"} %d\n", d.ID, vs.Name, vs.Succeeded)
			fmt.Fprintf(b, "ebb_vertex_tasks{dag=%q,vertex=%q,state=\"running\"} %d\n", d.ID, vs.Name, vs.Running)
			fmt.Fprintf(b, "ebb_vertex_tasks{dag=%q,vertex=%q,state=\"total\"} %d\n", d.ID, vs.Name, vs.Total)
		}
	}
	u.writeDurations(b, v)
	WriteHelp(b, "ebb_group_workers")
	for _, g := range o.Groups {
		fmt.Fprintf(b, "ebb_group_workers{group=%q} %d\n", g.Name, g.Workers)
	}
	WriteHelp(b, "ebb_group_usage_percent")
	for _, g := range o.Groups {
		fmt.Fprintf(b, "ebb_group_usage_percent{group=%q} %.1f\n", g.Name, g.UsagePercent)
	}
	WriteHelp(b, "ebb_group_queued_attempts")
	for _, g := range o.Groups {
		fmt.Fprintf(b, "ebb_group_queued_attempts{group=%q} %d\n", g.Name, g.QueuedAttempts)
	}
	WriteHelp(b, "ebb_group_preempted_containers_total")
	for _, g := range o.Groups {
		fmt.Fprintf(b, "ebb_group_preempted_containers_total{group=%q,outcome=\"warned\"} %d\n", g.Name, g.PreemptWarned)
		fmt.Fprintf(b, "ebb_group_preempted_containers_total{group=%q,outcome=\"given_back\"} %d\n", g.Name, g.PreemptGivenBack)
		fmt.Fprintf(b, "ebb_group_preempted_containers_total{group=%q,outcome=\"lost\"} %d\n", g.Name, g.PreemptLost)
		fmt.Fprintf(b, "ebb_group_preempted_containers_total{group=%q,outcome=\"evicted\"} %d\n", g.Name, g.PreemptEvicted)
	}
	WriteHelp(b, "ebb_group_slowstart_killed_attempts_total")
	for _, g := range o.Groups {
		fmt.Fprintf(b, "ebb_group_slowstart_killed_attempts_total{group=%q} %d\n", g.Name, g.SlowStartKilled)
	}
	WriteHelp(b, "ebb_autoscaler_transitions_total")
	byReason := map[string]int{}
	var keys []string
	for _, t := range o.Transitions {
		k := fmt.Sprintf("group=%q,from=%q,to=%q,reason=%q", t.Group, t.From, t.To, reasonClass(t.Reason))
		if byReason[k] == 0 {
			keys = append(keys, k)
		}
		byReason[k]++
	}
	for _, k := range keys {
		fmt.Fprintf(b, "ebb_autoscaler_transitions_total{%s} %d\n", k, byReason[k])
	}
	WriteHelp(b, "ebb_worker_moves_total")
	fmt.Fprintf(b, "ebb_worker_moves_total %d\n", len(o.Moves))
	WriteHelp(b, "ebb_nodes")
	fmt.Fprintf(b, "ebb_nodes %d\n", len(o.Nodes))
}

// writeDurations is the histogram of ended attempts' run times, per
// vertex, over the attempts the journal holds.
func (u *UI) writeDurations(b *strings.Builder, v View) {
	WriteHelp(b, "ebb_attempt_duration_seconds")
	for _, d := range v.DAGs() {
		dv, ok := v.DAGView(d.ID)
		if !ok {
			continue
		}
		type hist struct {
			counts []int
			sum    float64
			n      int
		}
		per := map[string]*hist{}
		for _, a := range dv.Attempts {
			if a.End.IsZero() {
				continue
			}
			h := per[a.Vertex]
			if h == nil {
				h = &hist{counts: make([]int, len(durationBuckets))}
				per[a.Vertex] = h
			}
			s := a.End.Sub(a.Start).Seconds()
			for i, le := range durationBuckets {
				if s <= le {
					h.counts[i]++
				}
			}
			h.sum += s
			h.n++
		}
		for _, vs := range d.Vertices {
			h := per[vs.Name]
			if h == nil {
				continue
			}
			for i, le := range durationBuckets {
				fmt.Fprintf(b, "ebb_attempt_duration_seconds_bucket{dag=%q,vertex=%q,le=\"%g\"} %d\n", d.ID, vs.Name, le, h.counts[i])
			}
			fmt.Fprintf(b, "ebb_attempt_duration_seconds_bucket{dag=%q,vertex=%q,le=\"+Inf\"} %d\n", d.ID, vs.Name, h.n)
			fmt.Fprintf(b, "ebb_attempt_duration_seconds_sum{dag=%q,vertex=%q} %g\n", d.ID, vs.Name, h.sum)
			fmt.Fprintf(b, "ebb_attempt_duration_seconds_count{dag=%q,vertex=%q} %d\n", d.ID, vs.Name, h.n)
		}
	}
}

var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// reasonClass keeps a label's values few: "usage 85% ≥ 80%, 3 attempts
// queued" and "usage 91% ≥ 80%, 5 attempts queued" are one reason.
func reasonClass(reason string) string { return digits.ReplaceAllString(reason, "N") }
