package am

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// statusHandler serves the AM's status page (its YARN tracking URL) and
// Prometheus text metrics.
func (a *AM) statusHandler() http.Handler {
	mux := http.NewServeMux()
	snapshot := func(r *http.Request) (dags []core.DAGStatus, groups []core.GroupStatus, nodes []core.NodeStatus, err error) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		err = a.loop.Do(ctx, func(c *core.Core, _ time.Time) { dags, groups, nodes = c.DAGs(), c.Groups(), c.Nodes() })
		return
	}
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		dags, groups, nodes, err := snapshot(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		var b bytes.Buffer // rendered whole, then written once: one error to handle
		counts := map[core.DAGState]int{}
		for _, d := range dags {
			counts[d.State]++
		}
		fmt.Fprintln(&b, "# HELP ebb_dags DAGs by state.\n# TYPE ebb_dags gauge")
		for st := core.DAGSubmitted; st <= core.DAGKilled; st++ {
			fmt.Fprintf(&b, "ebb_dags{state=%q} %d\n", st, counts[st])
		}
		fmt.Fprintln(&b, "# HELP ebb_group_workers Workers per ContainerGroup.\n# TYPE ebb_group_workers gauge")
		for _, g := range groups {
			fmt.Fprintf(&b, "ebb_group_workers{group=%q} %d\n", g.Name, g.Workers)
		}
		fmt.Fprintln(&b, "# HELP ebb_group_usage_percent Memory of running attempts / memory workers offer.\n# TYPE ebb_group_usage_percent gauge")
		for _, g := range groups {
			fmt.Fprintf(&b, "ebb_group_usage_percent{group=%q} %.1f\n", g.Name, g.UsagePercent)
		}
		fmt.Fprintln(&b, "# HELP ebb_group_queued_attempts Attempts waiting for a worker.\n# TYPE ebb_group_queued_attempts gauge")
		for _, g := range groups {
			fmt.Fprintf(&b, "ebb_group_queued_attempts{group=%q} %d\n", g.Name, g.QueuedAttempts)
		}
		fmt.Fprintf(&b, "# HELP ebb_nodes Nodes holding workers.\n# TYPE ebb_nodes gauge\nebb_nodes %d\n", len(nodes))
		writeBody(w, b.Bytes())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		dags, groups, nodes, err := snapshot(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b bytes.Buffer
		fmt.Fprint(&b, "<!doctype html><title>ebb</title><h1>ebb ApplicationMaster</h1><h2>DAGs</h2><table border=1><tr><th>id<th>name<th>state<th>tasks<th>running<th>goal<th>s_req<th>utility<th>slots<th>diagnostics</tr>")
		for _, d := range dags {
			goal := "-"
			if !d.Goal.IsZero() {
				goal = d.Goal.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(&b, "<tr><td>%s<td>%s<td>%s<td>%d/%d<td>%d<td>%s<td>%.1f<td>%.2f<td>%d<td>%s</tr>", html.EscapeString(d.ID), html.EscapeString(d.Name),
				d.State, d.Succeeded, d.TotalTasks, d.Running, goal, d.SReq, d.Utility, d.Slots, html.EscapeString(d.Diagnostics))
		}
		fmt.Fprint(&b, "</table><h2>ContainerGroups</h2><table border=1><tr><th>group<th>state<th>usage<th>workers<th>pending<th>nodes<th>queued<th>running</tr>")
		for _, g := range groups {
			fmt.Fprintf(&b, "<tr><td>%s<td>%s<td>%.0f%%<td>%d<td>%d<td>%d<td>%d<td>%d</tr>", html.EscapeString(g.Name), g.State,
				g.UsagePercent, g.Workers, g.PendingWorkers, g.Nodes, g.QueuedAttempts, g.RunningAttempts)
		}
		fmt.Fprint(&b, "</table><h2>Nodes</h2><table border=1><tr><th>node<th>memory used<th>workers<th>draining</tr>")
		for _, n := range nodes {
			fmt.Fprintf(&b, "<tr><td>%s<td>%d / %d MB<td>%d<td>%v</tr>", html.EscapeString(n.ID), n.UsedMB, n.CapacityMB, n.Workers, n.Draining)
		}
		fmt.Fprint(&b, "</table>")
		writeBody(w, b.Bytes())
	})
	return mux
}

// writeBody sends a rendered page. A client that went away mid-response is
// not the AM's problem, and the status code is already sent: nothing to do
// but drop it.
func writeBody(w http.ResponseWriter, body []byte) {
	_, _ = w.Write(body) // the reader hung up; nothing to report to it
}
