package sim

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/scheduler"
)

// Recycling between two groups of one kind, through the one executor.
// Group a's job (two 4000 MB tasks of 100 s in 4000 MB workers) runs first;
// at t=300 s, long before a's workers reach the 5-minute idle timeout, group
// b (another name, same worker size: the same ContainerKind) gets the same
// job. Its two workers are a's two idle ones, moved rather than started:
// 2 moves, and b's tasks start at once (no node to provision), so b ends
// 100 s after it arrives. Before the sim carried out MoveWorker this run
// never finished.
func TestRecyclingMovesWorkersBetweenGroupsOfAKind(t *testing.T) {
	for _, scheme := range []scheduler.RecycleScheme{scheduler.RecycleFIFO, scheduler.RecycleFair} {
		t.Run(scheme.String(), func(t *testing.T) {
			mk := func(id, group string, submit time.Duration) Job {
				return Job{ID: id, Submit: submit, Spec: &dag.Spec{Name: id,
					Group: dag.GroupSpec{Name: group, WorkerMemoryMB: 4000, WorkerVCores: 1},
					Vertices: []dag.VertexSpec{{Name: "v", Command: dag.Command{"sim"}, Parallelism: 2, MemoryMB: 4000,
						SimDurations: []dag.Duration{dag.Duration(100 * time.Second)}}}}}
			}
			p, err := ParsePolicy("mr3")
			if err != nil {
				t.Fatal(err)
			}
			p.Core.Recycle = scheme
			rec, err := Run([]Job{mk("a", "a", 0), mk("b", "b", 300*time.Second)}, testConfig(), p)
			if err != nil {
				t.Fatal(err)
			}
			r := rec.Run()
			for _, j := range r.Jobs {
				if !j.Completed {
					t.Fatalf("job %s did not complete", j.ID)
				}
				if j.ID == "b" && j.JCT() != 100*time.Second {
					t.Errorf("job b took %s, want 100s: its workers are a's, already up", j.JCT())
				}
			}
			if r.WorkerMoves != 2 {
				t.Errorf("%d worker moves, want 2 (a's two idle workers to b)", r.WorkerMoves)
			}
		})
	}
}
