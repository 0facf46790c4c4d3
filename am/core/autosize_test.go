package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/scheduler"
)

// smallWC is the small word count: one map, two reducers, 256 MB
// each, and no worker size: ebb decides.
const smallWC = `
name: small
containerGroup: {name: g}
vertices:
  - {name: map, command: "true", parallelism: 1, memoryMB: 256}
  - {name: reduce, command: "true", parallelism: 2, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`

func groupView(t *testing.T, c *Core, name string) GroupView {
	t.Helper()
	for _, g := range c.GroupViews() {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %s", name)
	return GroupView{}
}

func TestAutoSizedGroup(t *testing.T) {
	local := AllocationLimits{MaxMB: 4096}
	tests := []struct {
		name string
		spec string
		lim  AllocationLimits
		want int64
	}{
		// Widest vertex 2 × 256 MB = 512: not the 1024 the issue saw.
		{"small word count", smallWC, local, 512},
		// One task of 256 MB: a 256 MB worker.
		{"one task", strings.Replace(smallWC, "parallelism: 2", "parallelism: 1", 1), local, 256},
		// Eight maps of 256: at most 4 per worker = 1024.
		{"wide", strings.Replace(smallWC, "parallelism: 1", "parallelism: 8", 1), local, 1024},
		// YARN's 1024 MB minimum allocation: 512 rounds up to 1024.
		{"yarn rounding", smallWC, AllocationLimits{MinMB: 1024, MaxMB: 8192}, 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, CoreOptions{Allocation: tt.lim})
			f.submit(tt.spec)
			g := groupView(t, f.c, "g")
			if g.MemoryMB != tt.want || !g.SizedByEbb {
				t.Fatalf("group g: %d MB workers (sized by ebb: %v), want %d", g.MemoryMB, g.SizedByEbb, tt.want)
			}
		})
	}
}

// The worker size the YARN world learns at registration applies to groups
// sized after it.
func TestSetAllocation(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.c.SetAllocation(AllocationLimits{MinMB: 64, MaxMB: 2048})
	f.submit(strings.Replace(smallWC, "memoryMB: 256}\n  - {name: reduce", "memoryMB: 300}\n  - {name: reduce", 1))
	// 2 × 300 = 600, in 64 MB steps: 640.
	if g := groupView(t, f.c, "g"); g.MemoryMB != 640 {
		t.Fatalf("group g: %d MB workers, want 640", g.MemoryMB)
	}
}

// A task larger than the largest container is refused at submission,
// naming the group and both sizes.
func TestAutoSizedTaskTooBig(t *testing.T) {
	f := newFake(t, CoreOptions{Allocation: AllocationLimits{MaxMB: 4096}})
	s, err := dag.Parse("big.yaml", []byte(strings.Replace(smallWC, "memoryMB: 256}\n  - {name: reduce", "memoryMB: 5000}\n  - {name: reduce", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.c.SubmitDAG(f.now, Submission{Spec: s})
	var se *scheduler.SizeError
	const want = "DAG small rejected: containerGroup g leaves workerMemoryMB to ebb, but a task asks 5000 MB, more than the cluster's largest container (4096 MB)"
	if !errors.As(err, &se) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// In a session, DAGs that leave the size to ebb share the group the first
// one sized while their tasks fit its workers; the same shape always
// sizes the same; a task too big for the group is a conflict that says
// the size was left to ebb.
func TestAutoSizedGroupsMerge(t *testing.T) {
	f := newFake(t, CoreOptions{Allocation: AllocationLimits{MaxMB: 4096}})
	first := f.submit(smallWC) // sizes g at 512
	wide := strings.Replace(strings.Replace(smallWC, "name: small", "name: wide", 1), "parallelism: 1", "parallelism: 8", 1)
	second := f.submit(wide) // alone it would size 1024; its 256 MB tasks fit 512
	s1, _ := f.c.DAG(first)
	s2, _ := f.c.DAG(second)
	if gs := f.c.GroupViews(); len(gs) != 1 || gs[0].MemoryMB != 512 || s1.Group != "g" || s2.Group != "g" {
		t.Fatalf("groups %+v, want one group g of 512 MB workers used by both DAGs", gs)
	}
	big := strings.Replace(strings.Replace(smallWC, "name: small", "name: big", 1), "memoryMB: 256}\n  - {name: reduce", "memoryMB: 1024}\n  - {name: reduce", 1)
	s, _ := dag.Parse("big.yaml", []byte(big))
	_, err := f.c.SubmitDAG(f.now, Submission{Spec: s})
	var ce *scheduler.GroupConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(),
		`containerGroup "g" is in use by dag_0001, dag_0002 with workerMemoryMB left to ebb (512 MB for tasks of up to 256 MB), workerVCores=1; `+
			`this DAG asks for workerMemoryMB left to ebb (2048 MB for tasks of up to 1024 MB), workerVCores=1 (workerMemoryMB differ)`) {
		t.Fatalf("err = %v, want a conflict on workerMemoryMB left to ebb", err)
	}
}
