package sim

import (
	"container/heap"
	"time"
)

// event is something that happens at a virtual time; seq breaks ties in
// the order events were scheduled, so runs replay exactly.
type event struct {
	at  time.Time
	seq uint64
	fn  func(now time.Time)
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return e
}

// clock is the virtual clock and its agenda.
type clock struct {
	now time.Time
	seq uint64
	q   eventQueue
}

func (c *clock) at(t time.Time, fn func(now time.Time)) {
	if t.Before(c.now) {
		t = c.now
	}
	c.seq++
	heap.Push(&c.q, &event{at: t, seq: c.seq, fn: fn})
}

func (c *clock) after(d time.Duration, fn func(now time.Time)) { c.at(c.now.Add(d), fn) }

// next runs the earliest event; false when none is left.
func (c *clock) next() bool {
	if len(c.q) == 0 {
		return false
	}
	e := heap.Pop(&c.q).(*event)
	c.now = e.at
	e.fn(e.at)
	return true
}
