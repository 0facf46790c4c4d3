package core

import (
	"fmt"
	"slices"
	"time"
)

// Why a worker was lost often comes after the loss itself. A worker's
// connection closes the moment its process dies; the cluster says why it
// died only later: YARN in the next allocate's completed containers (exit
// status -102 when preempted), Kubernetes when the kubelet, once every
// container of the pod has ended, writes the pod's terminal status (its
// DisruptionTarget condition, reason Evicted, or OOMKilled). The Core
// does not wait for the cause: it loses the worker at once, as it must
// for any loss (its attempts run again, its outputs are rebuilt, no task
// failure counted), and keeps what it needs to count the loss again when
// the cause arrives: the group the worker served and the attempts it ran.
// A preemption or an eviction then counts as one; an OOM kill fails those
// attempts on the memory retry path, as when the cause comes first.
// Waiting for the cause before losing the worker would keep its attempts
// on a worker that is gone, and the Core would go on placing attempts
// there, each refused by the missing connection.

// unexplainedWindow is how long the Core keeps an unexplained loss for
// its cause. It outlasts the slowest report that can still say why: a pod
// on a node that stopped answering is deleted by the taint manager only
// after the node's unreachable taint has been tolerated for its default
// 300 s (DeletionByTaintManager), after the node controller's 50 s grace.
// A cause later than this leaves the loss counted as a plain one.
const unexplainedWindow = 10 * time.Minute

// unexplainedLoss is a worker lost without a cause, kept for it.
type unexplainedLoss struct {
	group    string
	at       time.Time
	attempts []*attemptRun
}

// workerGone applies a WorkerGone: the cause counts against the worker's
// group (now, or against the loss it explains), then the worker is lost.
func (c *Core) workerGone(now time.Time, e WorkerGone) {
	c.advance(now)
	if w, ok := c.workers[e.Worker]; ok {
		c.countCause(e, w.group.info.Name)
		if e.OOMKilledMB > 0 {
			c.memoryKilled(slices.Clone(w.running), e)
		}
		if !e.Exited && !e.hasCause() {
			c.keepUnexplained(w)
		}
		c.WorkerLost(now, e.Worker, e.Reason)
		return
	}
	u, ok := c.unexplained[e.Worker]
	switch {
	case ok && e.hasCause():
		delete(c.unexplained, e.Worker)
		c.countCause(e, u.group)
		c.warnf("worker %s, lost earlier (%s), ended: %s", e.Worker, c.lost[e.Worker], e.Reason)
		if e.OOMKilledMB > 0 {
			c.memoryKilled(u.attempts, e)
		}
	case ok && e.Exited:
		delete(c.unexplained, e.Worker) // the world's last word: no cause
	case e.Preempted:
		c.preemptLost(e.Worker) // a worker the RM had warned of
	}
	c.WorkerLost(now, e.Worker, e.Reason)
}

// hasCause: the cluster says who ended the worker.
func (e WorkerGone) hasCause() bool { return e.Preempted || e.Evicted || e.OOMKilledMB > 0 }

// countCause counts a preemption or an eviction against group.
func (c *Core) countCause(e WorkerGone, group string) {
	switch {
	case e.Preempted:
		if _, warned := c.preempt.warned[e.Worker]; warned {
			c.preemptLost(e.Worker)
		} else {
			c.preempt.group(group).Lost++
		}
	case e.Evicted:
		c.preempt.group(group).Evicted++
	}
}

func (c *Core) keepUnexplained(w *workerRun) {
	if c.unexplained == nil {
		c.unexplained = map[string]*unexplainedLoss{}
	}
	c.unexplained[w.info.ID] = &unexplainedLoss{group: w.group.info.Name, at: c.now, attempts: slices.Clone(w.running)}
}

// forgetUnexplained drops the losses whose cause did not come in time.
func (c *Core) forgetUnexplained() {
	for id, u := range c.unexplained {
		if c.now.Sub(u.at) >= unexplainedWindow {
			delete(c.unexplained, id)
		}
	}
}

// memoryKilled fails the attempts a worker ran when the cluster killed its
// container at its memory limit: each counts as a failure of its task,
// whose next attempt asks for more memory (memoryExceeded). An attempt
// whose task has succeeded since (run again elsewhere), or whose DAG has
// ended, is left alone.
func (c *Core) memoryKilled(attempts []*attemptRun, e WorkerGone) {
	for _, a := range attempts {
		t := a.task
		d := t.vertex.dag
		if d.state.Done() || t.state == taskSucceeded {
			continue
		}
		u := AttemptUpdate{AttemptID: a.id, Result: AttemptFailed, MemoryUsedMB: e.OOMKilledMB, Diagnostics: e.Reason}
		if live, ok := c.attempt[a.id]; ok && live == a {
			c.attemptFailed(a, u)
			continue
		}
		// Already dropped with its lost worker and queued again: only the
		// failure and the larger ask remain to be counted.
		t.failures++
		d.failed++
		last := int(t.failures) >= c.opts.MaxFailedAttempts
		diag := c.memoryExceeded(a, e.OOMKilledMB, last)
		c.journal.attemptNoted(a.rec, diag)
		if last {
			c.endDAG(d, DAGFailed, fmt.Sprintf("vertex %s task %d failed %d times; last attempt %s: %s",
				t.vertex.spec.Name, t.index, t.failures, a.id, diag))
			continue
		}
		d.note(diag)
		c.warnf("attempt %s failed (%d of %d allowed): %s", a.id, t.failures, c.opts.MaxFailedAttempts, diag)
	}
}
