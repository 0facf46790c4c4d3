package scheduler

import (
	"slices"
	"testing"
)

// Issue 23, item 5: other resource types are part of a group and of its
// kind: a DAG naming the group with other resources is a conflict, and a
// GPU worker is never recycled into a group without GPUs.
func TestResourcesSplitGroupsAndKinds(t *testing.T) {
	gpu := GroupProps{Name: "g", WorkerMemoryMB: 1024, WorkerVCores: 1, Resources: map[string]int64{"yarn.io/gpu": 1}}
	plain := GroupProps{Name: "g", WorkerMemoryMB: 1024, WorkerVCores: 1}
	if d := gpu.Diff(plain); !slices.Equal(d, []string{"resources"}) {
		t.Errorf("diff %v, want [resources]", d)
	}
	if KindKey(gpu) == KindKey(plain) {
		t.Errorf("one kind %q for workers with and without a GPU", KindKey(gpu))
	}
}

// Issue 23, item 4: so is a node label: a DAG naming the group in another
// partition is a conflict, and a worker never moves between partitions.
func TestNodeLabelSplitsGroupsAndKinds(t *testing.T) {
	lab := GroupProps{Name: "g", WorkerMemoryMB: 1024, WorkerVCores: 1, NodeLabel: "gpu"}
	plain := GroupProps{Name: "g", WorkerMemoryMB: 1024, WorkerVCores: 1}
	if d := lab.Diff(plain); !slices.Equal(d, []string{"nodeLabel"}) {
		t.Errorf("diff %v, want [nodeLabel]", d)
	}
	if KindKey(lab) == KindKey(plain) {
		t.Errorf("one kind %q for workers in and out of partition gpu", KindKey(lab))
	}
}
