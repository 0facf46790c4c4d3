package core

import "time"

// IdleSince answers a session AM's idle question as of now: since when it
// has had no DAG to run. While a DAG is unfinished that is now; otherwise
// the latest end among the DAGs it holds, or since (the caller's previous
// answer, or when the session began waiting) when that is later: a DAG
// that began and ended between two questions counts too, and one the
// Core has forgotten since (compaction) does not move the answer back.
// The caller ends the session once now minus the answer reaches
// ebb.session.idle.timeout.secs.
func (c *Core) IdleSince(now, since time.Time) time.Time {
	for _, d := range c.DAGs() {
		switch {
		case !d.State.Done():
			return now
		case d.Finish.After(since):
			since = d.Finish
		}
	}
	return since
}
