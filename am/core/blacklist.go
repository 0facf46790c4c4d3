package core

import "fmt"

// BlacklistMinFailures is how many attempts must have failed on a node
// before it can be blacklisted: MapReduce's per-node default
// (mapreduce.job.maxtaskfailures.per.tracker = 3), so one bad task does not
// cost a node.
const BlacklistMinFailures = 3

// nodeStats counts attempts that ended on a node, for blacklisting. They
// outlive the node's workers.
type nodeStats struct{ ended, failed int }

// noteAttemptEnd counts an attempt that succeeded or failed on its node
// (killed and fetch-failed attempts say nothing about the node) and
// blacklists the node when failures pass the threshold.
func (c *Core) noteAttemptEnd(a *attemptRun, r AttemptResult) {
	if !c.opts.Blacklisting || a.worker == nil || (r != AttemptSucceeded && r != AttemptFailed) {
		return
	}
	id := a.worker.node.id
	s := c.nodeStats[id]
	if s == nil {
		s = &nodeStats{}
		c.nodeStats[id] = s
	}
	s.ended++
	if r == AttemptFailed {
		s.failed++
	}
	if _, done := c.blacklist[id]; done || s.failed < BlacklistMinFailures || s.failed*100 < c.opts.BlacklistFailurePercent*s.ended {
		return
	}
	why := fmt.Sprintf("blacklisted: %d of %d attempts failed there (mr3.am.maxtaskfailure.percent=%d)", s.failed, s.ended, c.opts.BlacklistFailurePercent)
	c.blacklist[id] = why
	c.warnf("node %s %s", id, why)
	// Its workers finish what runs and serve what they hold, then stop;
	// no new worker goes there (closedNodes).
	c.DrainNode(c.now, id, why, false)
}

// Blacklisted lists the blacklisted nodes and why.
func (c *Core) Blacklisted() map[string]string {
	out := make(map[string]string, len(c.blacklist))
	for k, v := range c.blacklist {
		out[k] = v
	}
	return out
}
