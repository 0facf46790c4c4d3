package core

import "time"

// IdleSince answers a session AM's idle question as of now, from an
// ActivityQuery's answer: since when it has had no DAG to run. While a DAG
// is unfinished that is now; otherwise the latest end among the DAGs the
// core holds, or since (the caller's previous answer, or when the session
// began waiting) when that is later: a DAG that began and ended between
// two questions counts too, and one the Core has forgotten since
// (compaction) does not move the answer back. The caller ends the session
// once now minus the answer reaches ebb.session.idle.timeout.secs.
func (a Activity) IdleSince(now, since time.Time) time.Time {
	switch {
	case a.Busy:
		return now
	case a.LastFinish.After(since):
		return a.LastFinish
	}
	return since
}
