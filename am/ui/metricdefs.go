package ui

import (
	"fmt"
	"slices"
	"strings"
)

// MetricDef is one family of /metrics: the one place its name, type,
// labels and meaning are written. /metrics writes its HELP and TYPE lines
// from here and docs/reference/metrics.md is generated from here, so the
// reference cannot drift from what the AM serves.
type MetricDef struct {
	Name   string
	Type   string // gauge, counter, histogram, summary
	Labels string // the labels its series carry, comma-separated ("" = none)
	Help   string
	// World is the world that serves it ("" = every world).
	World string
}

// metricDefs is every family, in the order /metrics writes them.
var metricDefs = []MetricDef{
	{Name: "ebb_dags", Type: "gauge", Labels: "state",
		Help: "DAGs by state."},
	{Name: "ebb_dag_tasks", Type: "gauge", Labels: "dag, name, state",
		Help: "Tasks per DAG by state (succeeded, running, total)."},
	{Name: "ebb_dag_failed_attempts_total", Type: "counter", Labels: "dag",
		Help: "Failed attempts per DAG."},
	{Name: "ebb_speculative_attempts_total", Type: "counter", Labels: "outcome",
		Help: "Backup attempts for stragglers (ebb.speculation.enabled): launched, won (the backup finished first, the original was killed) and lost (the original finished first, the backup was killed)."},
	{Name: "ebb_vertex_tasks", Type: "gauge", Labels: "dag, vertex, state",
		Help: "Tasks per vertex by state."},
	{Name: "ebb_attempt_duration_seconds", Type: "histogram", Labels: "dag, vertex, le",
		Help: "Run time of ended attempts."},
	{Name: "ebb_group_workers", Type: "gauge", Labels: "group",
		Help: "Workers per ContainerGroup."},
	{Name: "ebb_group_usage_percent", Type: "gauge", Labels: "group",
		Help: "Memory of running attempts / memory workers offer."},
	{Name: "ebb_group_queued_attempts", Type: "gauge", Labels: "group",
		Help: "Attempts waiting for a worker."},
	{Name: "ebb_group_preempted_containers_total", Type: "counter", Labels: "group, outcome",
		Help: "Containers per ContainerGroup the ResourceManager warned it would preempt (warned), the AM gave back before the kill (given_back), the cluster killed by preemption (lost: YARN exit -102, Kubernetes PreemptionByScheduler), and the cluster evicted (evicted: Kubernetes' Eviction API, node pressure, taint manager)."},
	{Name: "ebb_group_slowstart_killed_attempts_total", Type: "counter", Labels: "group",
		Help: "Consumer attempts gathering inputs under slow start that the AM killed so that their queued producers could run (a slow-start stall)."},
	{Name: "ebb_autoscaler_transitions_total", Type: "counter", Labels: "group, from, to, reason",
		Help: "Autoscaler state changes, and requests for more workers during a scale-out (SCALE_OUT to SCALE_OUT), by group, change and reason (numbers in the reason replaced by N)."},
	{Name: "ebb_worker_moves_total", Type: "counter",
		Help: "Workers recycled from one group to another."},
	{Name: "ebb_nodes", Type: "gauge",
		Help: "Nodes holding workers."},
	{Name: "ebb_rm_allocate_seconds", Type: "summary", World: "yarn",
		Help: "Round trips of allocate() to the ResourceManager."},
	{Name: "ebb_rm_allocate_max_seconds", Type: "gauge", World: "yarn",
		Help: "The slowest allocate() round trip."},
}

// MetricDefs returns every /metrics family, in the order they are written.
func MetricDefs() []MetricDef { return slices.Clone(metricDefs) }

// undocumented marks a family written without a definition; a test scrapes
// /metrics for it (the AM itself never fails over a missing doc line).
const undocumented = "(not defined in am/ui/metricdefs.go)"

// WriteHelp writes the HELP and TYPE lines of the family name.
func WriteHelp(b *strings.Builder, name string) {
	d := MetricDef{Name: name, Type: "untyped", Help: undocumented}
	if i := slices.IndexFunc(metricDefs, func(d MetricDef) bool { return d.Name == name }); i >= 0 {
		d = metricDefs[i]
	}
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", d.Name, d.Help, d.Name, d.Type)
}
