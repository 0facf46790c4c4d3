package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// taskQueue must give the tasks in key order whatever order they arrive
// in, and keep every task it holds through removals at any position: it
// is checked here against a sorted list of the same keys.
func TestTaskQueueKeepsKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	v := []*vertexRun{{topo: 0}, {topo: 1}, {topo: 2}}
	for _, x := range v {
		for i := range 500 {
			x.tasks = append(x.tasks, &taskRun{vertex: x, index: i})
		}
	}
	q := taskQueue{vs: v}
	var want []uint64 // the keys queued, sorted
	queuedTasks := map[uint64]bool{}
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(10); {
		case op < 5: // a task arrives: usually the next in order, sometimes any
			tk := v[r.IntN(3)].tasks[r.IntN(500)]
			if n := len(want); n > 0 && op < 3 {
				last := want[n-1] + 1
				if uint32(last) == 500 {
					last += 1<<32 - 500 // the next vertex's first task
				}
				if last>>32 > 2 {
					continue
				}
				tk = v[last>>32].tasks[uint32(last)]
			}
			k := queueKey(tk)
			if queuedTasks[k] {
				continue // a task waits at most once
			}
			queuedTasks[k] = true
			q.push(tk)
			i, _ := slices.BinarySearch(want, k)
			want = slices.Insert(want, i, k)
		case q.Len() > 0 && op < 8: // the head leaves
			h := q.head()
			if k := q.key(h); k != want[0] {
				t.Fatalf("step %d: head %x, want %x", step, k, want[0])
			}
			got := queueKey(q.remove(h))
			want = want[1:]
			delete(queuedTasks, got)
		case q.Len() > 0: // a task at any position leaves (slow start's pick)
			i := r.IntN(q.Len())
			k := q.key(i)
			if got := queueKey(q.remove(i)); got != k {
				t.Fatalf("step %d: removed %x from position %d, which held %x", step, got, i, k)
			}
			j, _ := slices.BinarySearch(want, k)
			want = slices.Delete(want, j, j+1)
			delete(queuedTasks, k)
		}
		if q.Len() != len(want) {
			t.Fatalf("step %d: %d queued, want %d", step, q.Len(), len(want))
		}
	}
	var got []uint64
	for _, tk := range q.all {
		got = append(got, queueKey(tk))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("queue holds %d keys, not the %d queued", len(got), len(want))
	}
}
