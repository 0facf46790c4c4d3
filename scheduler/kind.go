package scheduler

import (
	"maps"
	"slices"
	"strconv"
)

// GroupProps are the properties that define a ContainerGroup, as a DAG
// names them, with defaults already filled in (e.g. vcores 1).
type GroupProps struct {
	Name           string
	WorkerMemoryMB int64
	WorkerVCores   int
	Env            map[string]string
	MaxWorkers     int // 0 = unlimited
	// Resources: other YARN resource types per worker (yarn.io/gpu: 1).
	Resources map[string]int64
	// NodeLabel: the YARN partition the workers run in ("" = default).
	NodeLabel string
	// SizedByEbb: the DAG left the worker size to ebb (SizeWorker chose
	// WorkerMemoryMB); TaskMB is then the DAG's largest task, which is all
	// it needs of a worker. Diff compares neither: MergeGroup does.
	SizedByEbb bool
	TaskMB     int64
}

// Diff names the properties in which p and q differ, in a fixed order,
// with the names a DAG spec uses for them; nil when they are identical.
// A nil and an empty Env are the same environment.
func (p GroupProps) Diff(q GroupProps) []string {
	var d []string
	if p.Name != q.Name {
		d = append(d, "name")
	}
	if p.WorkerMemoryMB != q.WorkerMemoryMB {
		d = append(d, "workerMemoryMB")
	}
	if p.WorkerVCores != q.WorkerVCores {
		d = append(d, "workerVCores")
	}
	if !maps.Equal(p.Env, q.Env) {
		d = append(d, "env")
	}
	if p.MaxWorkers != q.MaxWorkers {
		d = append(d, "maxWorkers")
	}
	if !maps.Equal(p.Resources, q.Resources) {
		d = append(d, "resources")
	}
	if p.NodeLabel != q.NodeLabel {
		d = append(d, "nodeLabel")
	}
	return d
}

// KindKey names the ContainerKind of a group. Two groups are of one kind
// iff their workers have the same container resources: memory (MB) and
// vcores. That is exactly what the ResourceManager allocated for the
// container, so only those must match for a worker of one group to serve
// another without YARN knowing. Everything else (the group's name,
// environment, max workers, the task memory inside the worker) is
// re-initialised when a worker is recycled, so it does not split kinds.
func KindKey(p GroupProps) string {
	k := "memoryMB=" + strconv.FormatInt(p.WorkerMemoryMB, 10) + ",vcores=" + strconv.Itoa(p.WorkerVCores)
	// Other resource types are part of the container too.
	for _, name := range slices.Sorted(maps.Keys(p.Resources)) {
		k += "," + name + "=" + strconv.FormatInt(p.Resources[name], 10)
	}
	// So is its partition: a worker recycled into another group stays on
	// its node, which the other group's label may not admit.
	if p.NodeLabel != "" {
		k += ",nodeLabel=" + p.NodeLabel
	}
	return k
}
