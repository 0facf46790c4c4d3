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
	out := make([]*attemptRun, len(*h))
	for i, e := range *h {
		out[i] = e.a
	}
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
// order, then task index. Each entry keeps that order as one number beside
// the attempt, so sifting the heap compares entries that sit side by side
// instead of reading each attempt's task and vertex: with 100,000 attempts
// queued those reads were most of the cost of a placement.
type attemptQueue []queued

type queued struct {
	key uint64 // the vertex's topological position, then the task's index
	a   *attemptRun
}

func queueKey(a *attemptRun) uint64 {
	t := a.task
	return uint64(t.vertex.topo)<<32 | uint64(uint32(t.index))
}

func (q attemptQueue) Len() int           { return len(q) }
func (q attemptQueue) Less(i, j int) bool { return q[i].key < q[j].key }
func (q attemptQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *attemptQueue) Push(x any) {
	a := x.(*attemptRun)
	*q = append(*q, queued{key: queueKey(a), a: a})
}
func (q *attemptQueue) Pop() any {
	old := *q
	n := len(old)
	x := old[n-1].a
	old[n-1] = queued{}
	*q = old[:n-1]
	return x
}
