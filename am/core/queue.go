package core

import (
	"container/heap"
	"sort"

	"github.com/ebb-am/ebb/scheduler"
)

// dagQueues holds a group's queued attempts, one heap per DAG, so the
// task order (scheduler.TaskOrder: fifo, fair, ras) can choose which DAG's
// attempt goes next.
type dagQueues struct {
	byDAG map[*dagRun]*attemptQueue
	dags  []*dagRun // DAGs with queued attempts, by priority then submission
	n     int
	// heads and headDAGs are the placement pass's buffers (queueHeads),
	// kept here so each pass reuses them.
	heads    []scheduler.QueueHead
	headDAGs []*dagRun
}

func (q *dagQueues) Len() int { return q.n }

func (q *dagQueues) push(a *attemptRun) {
	d := a.task.vertex.dag
	if q.byDAG == nil {
		q.byDAG = map[*dagRun]*attemptQueue{}
	}
	h := q.byDAG[d]
	if h == nil {
		h = &attemptQueue{}
		q.byDAG[d] = h
		i := sort.Search(len(q.dags), func(i int) bool { return dagBefore(d, q.dags[i]) })
		q.dags = append(q.dags, nil)
		copy(q.dags[i+1:], q.dags[i:])
		q.dags[i] = d
	}
	heap.Push(h, a)
	q.n++
}

// pop takes d's attempt at index i of its heap (0: the head).
func (q *dagQueues) pop(d *dagRun, i int) *attemptRun {
	h := q.byDAG[d]
	a := heap.Remove(h, i).(*attemptRun)
	q.n--
	if h.Len() == 0 {
		q.remove(d)
	}
	return a
}

// drop removes every queued attempt of d and returns them.
func (q *dagQueues) drop(d *dagRun) []*attemptRun {
	h := q.byDAG[d]
	if h == nil {
		return nil
	}
	out := []*attemptRun(*h)
	q.n -= len(out)
	q.remove(d)
	return out
}

func (q *dagQueues) remove(d *dagRun) {
	delete(q.byDAG, d)
	for i, x := range q.dags {
		if x == d {
			q.dags = append(q.dags[:i], q.dags[i+1:]...)
			return
		}
	}
}

// dagBefore is the fifo order: higher priority first, then submission.
func dagBefore(a, b *dagRun) bool {
	if a.spec.Priority != b.spec.Priority {
		return a.spec.Priority > b.spec.Priority
	}
	return a.seq < b.seq
}

// attemptQueue orders one DAG's queued attempts: vertices in topological
// order, then task index.
type attemptQueue []*attemptRun

func (q attemptQueue) Len() int { return len(q) }
func (q attemptQueue) Less(i, j int) bool {
	a, b := q[i].task, q[j].task
	if a.vertex != b.vertex {
		return a.vertex.topo < b.vertex.topo
	}
	return a.index < b.index
}
func (q attemptQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *attemptQueue) Push(x any)   { *q = append(*q, x.(*attemptRun)) }
func (q *attemptQueue) Pop() any {
	old := *q
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return x
}
