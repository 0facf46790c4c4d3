package core

import (
	"container/heap"
	"sort"

	"github.com/ebb-am/ebb/scheduler"
)

// dagQueues holds a group's queued tasks, one heap per DAG, so the task
// order (scheduler.TaskOrder: fifo, fair, ras) can choose which DAG's
// attempt goes next. A queued task has no attempt record yet (place
// creates it).
type dagQueues struct {
	byDAG map[*dagRun]*taskQueue
	dags  []*dagRun // DAGs with queued attempts, by priority then submission
	n     int
	// heads and headDAGs are the placement pass's buffers (queueHeads),
	// kept here so each pass reuses them.
	heads    []scheduler.QueueHead
	headDAGs []*dagRun
}

func (q *dagQueues) Len() int { return q.n }

func (q *dagQueues) push(t *taskRun) {
	d := t.vertex.dag
	if q.byDAG == nil {
		q.byDAG = map[*dagRun]*taskQueue{}
	}
	h := q.byDAG[d]
	if h == nil {
		h = &taskQueue{}
		q.byDAG[d] = h
		i := sort.Search(len(q.dags), func(i int) bool { return dagBefore(d, q.dags[i]) })
		q.dags = append(q.dags, nil)
		copy(q.dags[i+1:], q.dags[i:])
		q.dags[i] = d
	}
	heap.Push(h, t)
	q.n++
}

// pop takes d's task at index i of its heap (0: the head).
func (q *dagQueues) pop(d *dagRun, i int) *taskRun {
	h := q.byDAG[d]
	t := heap.Remove(h, i).(*taskRun)
	q.n--
	if h.Len() == 0 {
		q.remove(d)
	}
	return t
}

// drop removes every queued task of d and returns them.
func (q *dagQueues) drop(d *dagRun) []*taskRun {
	h := q.byDAG[d]
	if h == nil {
		return nil
	}
	out := make([]*taskRun, len(*h))
	for i, e := range *h {
		out[i] = e.t
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

// taskQueue orders one DAG's queued tasks: vertices in topological order,
// then task index. Each entry keeps that order as one number beside the
// task, so sifting the heap compares entries that sit side by side
// instead of reading each task's vertex: with 100,000 tasks queued those
// reads were most of the cost of a placement.
type taskQueue []queued

type queued struct {
	key uint64 // the vertex's topological position, then the task's index
	t   *taskRun
}

func queueKey(t *taskRun) uint64 {
	return uint64(t.vertex.topo)<<32 | uint64(uint32(t.index))
}

func (q taskQueue) Len() int           { return len(q) }
func (q taskQueue) Less(i, j int) bool { return q[i].key < q[j].key }
func (q taskQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *taskQueue) Push(x any) {
	t := x.(*taskRun)
	*q = append(*q, queued{key: queueKey(t), t: t})
}
func (q *taskQueue) Pop() any {
	old := *q
	n := len(old)
	x := old[n-1].t
	old[n-1] = queued{}
	*q = old[:n-1]
	return x
}
