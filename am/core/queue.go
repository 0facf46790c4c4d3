package core

import (
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
		h = &taskQueue{vs: d.byTopo}
		q.byDAG[d] = h
		i := sort.Search(len(q.dags), func(i int) bool { return dagBefore(d, q.dags[i]) })
		q.dags = append(q.dags, nil)
		copy(q.dags[i+1:], q.dags[i:])
		q.dags[i] = d
	}
	h.push(t)
	q.n++
}

// pop takes d's task at position i of its queue.
func (q *dagQueues) pop(d *dagRun, i int) *taskRun {
	h := q.byDAG[d]
	t := h.remove(i)
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
	out := make([]*taskRun, h.Len())
	for i, t := range h.all {
		out[i] = t
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

// taskQueue orders one DAG's queued tasks by key: vertices in
// topological order, then task index. Keys are unique in a queue (a task
// waits in it at most once), so the order is total and any structure that
// yields the smallest key first places the same tasks in the same order.
// An entry is the key alone: the queue is one DAG's, so the key names the
// task (vs[topo].tasks[index]). A queued task costs the queue 8 bytes, and
// the queue holds no pointers for the collector to scan.
//
// Tasks mostly arrive in key order (a DAG's tasks at its start, a
// consumer vertex's when its producers finish): those go to run, a sorted
// list taken from the front in O(1). A task that arrives out of order (a
// retry, a task a pass held for want of room) goes to rest, a heap. The
// head is the smaller of the two fronts. One heap of a million tasks cost
// a sift through 20 levels of cache misses per placement, a fifth of
// BenchmarkPlace10k's time.
//
// Positions (Len, key, task, remove, less) number run's entries first,
// then rest's.
type taskQueue struct {
	vs   []*vertexRun // the DAG's vertices in topological order
	run  []uint64     // ascending keys
	rest taskHeap
}

func queueKey(t *taskRun) uint64 {
	return uint64(t.vertex.topo)<<32 | uint64(uint32(t.index))
}

func (q *taskQueue) Len() int { return len(q.run) + len(q.rest) }

func (q *taskQueue) push(t *taskRun) {
	k := queueKey(t)
	if n := len(q.run); n == 0 || k > q.run[n-1] {
		q.run = append(q.run, k)
		return
	}
	q.rest.push(k)
}

// key is the key at position i.
func (q *taskQueue) key(i int) uint64 {
	if i < len(q.run) {
		return q.run[i]
	}
	return q.rest[i-len(q.run)]
}

// task is the task a key names.
func (q *taskQueue) task(k uint64) *taskRun { return q.vs[k>>32].tasks[uint32(k)] }

// at is the task at position i.
func (q *taskQueue) at(i int) *taskRun { return q.task(q.key(i)) }

// less orders positions i and j by key.
func (q *taskQueue) less(i, j int) bool { return q.key(i) < q.key(j) }

// head is the position of the smallest key (the queue is not empty).
func (q *taskQueue) head() int {
	if len(q.run) > 0 && (len(q.rest) == 0 || q.run[0] < q.rest[0]) {
		return 0
	}
	return len(q.run)
}

// remove takes the entry at position i out: O(1) at run's front, O(log n)
// in rest, a copy of what follows it elsewhere in run (slow start takes a
// consumer from run's tail end, where few follow).
func (q *taskQueue) remove(i int) *taskRun {
	if i >= len(q.run) {
		return q.task(q.rest.remove(i - len(q.run)))
	}
	t := q.task(q.run[i])
	if i == 0 {
		q.run = q.run[1:]
	} else {
		q.run = append(q.run[:i], q.run[i+1:]...)
	}
	if len(q.run) == 0 {
		q.run = nil // let the consumed front of its array go
	}
	return t
}

// all yields every task with its position, run's first.
func (q *taskQueue) all(yield func(int, *taskRun) bool) {
	for i, k := range q.run {
		if !yield(i, q.task(k)) {
			return
		}
	}
	for j, k := range q.rest {
		if !yield(len(q.run)+j, q.task(k)) {
			return
		}
	}
}

// taskHeap is a min-heap of keys. It sifts by hand, not through
// container/heap, whose Push and Pop box each entry in an interface: an
// allocation per held task, several per placement.
type taskHeap []uint64

func (h *taskHeap) push(k uint64) {
	*h = append(*h, k)
	h.up(len(*h) - 1)
}

// remove takes out the key at i.
func (h *taskHeap) remove(i int) uint64 {
	old := *h
	n := len(old) - 1
	k := old[i]
	old[i] = old[n]
	*h = old[:n]
	if i < n && !h.down(i) {
		h.up(i)
	}
	return k
}

func (h taskHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// down sifts i toward the leaves; it reports whether i moved.
func (h taskHeap) down(i0 int) bool {
	i := i0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			c = r
		}
		if h[i] <= h[c] {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return i > i0
}
