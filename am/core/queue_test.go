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
	var q taskQueue
	var want []uint64 // the keys queued, sorted
	queuedTasks := map[uint64]bool{}
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(10); {
		case op < 5: // a task arrives: usually the next in order, sometimes any
			tk := &taskRun{vertex: v[r.IntN(3)], index: r.IntN(500)}
			if n := len(want); n > 0 && op < 3 {
				last := want[n-1] + 1
				if last>>32 > 2 {
					continue
				}
				tk = &taskRun{vertex: v[last>>32], index: int(uint32(last))}
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
			if k := q.at(h).key; k != want[0] {
				t.Fatalf("step %d: head %x, want %x", step, k, want[0])
			}
			got := queueKey(q.remove(h))
			want = want[1:]
			delete(queuedTasks, got)
		case q.Len() > 0: // a task at any position leaves (slow start's pick)
			i := r.IntN(q.Len())
			k := q.at(i).key
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
	for _, e := range q.all {
		got = append(got, e.key)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("queue holds %d keys, not the %d queued", len(got), len(want))
	}
}
