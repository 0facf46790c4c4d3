package core

import "fmt"

// Fencing: a worker this AM attempt has lost (silent past the worker
// timeout, its stream broken, its container gone) had its attempts queued
// again and its outputs recomputed. If its process is still alive (it was
// stopped and woke up, or its network came back) it must not act on the
// work it held: the Core refuses its registration under the same id and
// every report it still sends (an attempt's end, an ask to commit, an
// output it offers), and counts each refusal. The worker fences itself
// too (worker/fence.go): it commits nothing once it could not heartbeat
// for the worker timeout, so neither side needs the other to agree.

// FencedError refuses the registration of a worker this AM has lost.
type FencedError struct{ Worker, Reason string }

func (e *FencedError) Error() string {
	return fmt.Sprintf("worker %s was declared lost (%s): fenced, its attempts run elsewhere; it may not register again", e.Worker, e.Reason)
}

// noteLost remembers a worker that is gone, so that it is fenced.
func (c *Core) noteLost(id, reason string) {
	if c.lost == nil {
		c.lost = map[string]string{}
	}
	c.lost[id] = reason
}

// fencedRegistration refuses a worker that registers again after it was
// lost.
func (c *Core) fencedRegistration(id string) error {
	reason, ok := c.lost[id]
	if !ok {
		return nil
	}
	c.fenced++
	c.warnf("refused the registration of worker %s: it was declared lost (%s); fenced", id, reason)
	return &FencedError{Worker: id, Reason: reason}
}

// fencedReport says whether a report about attemptID from worker is
// refused: the worker is lost, or the attempt is not its own (it was
// given to another worker after this one was lost).
func (c *Core) fencedReport(worker, attemptID string, what string) bool {
	if worker == "" {
		return false // the AM's own decision, not a worker's report
	}
	reason, lost := c.lost[worker]
	if !lost {
		if a, ok := c.attempt[attemptID]; !ok || a.worker == nil || a.worker.info.ID == worker {
			return false
		}
		reason = "the attempt is another worker's"
	}
	c.fenced++
	c.warnf("refused %s of attempt %s from worker %s (%s); fenced", what, attemptID, worker, reason)
	return true
}

// Fenced counts the registrations and reports refused from lost workers.
func (c *Core) Fenced() int { return c.fenced }

// report names what a report of this result is, for the fencing log.
func (r AttemptResult) report() string {
	switch r {
	case AttemptSucceeded:
		return "the success (an output offer)"
	case AttemptFailed, AttemptKilled, AttemptFetchFailed:
		return "the end"
	case AttemptCommitPending:
		return "the ask to commit"
	}
	return "the progress"
}

// fencedBeat says whether a heartbeat is a lost worker's, refused.
func (c *Core) fencedBeat(worker string) bool {
	reason, lost := c.lost[worker]
	if !lost {
		return false
	}
	c.fenced++
	c.warnf("refused a heartbeat from worker %s (%s); fenced", worker, reason)
	return true
}
