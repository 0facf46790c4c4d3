package recovery

import "github.com/ebb-am/ebb/recoverylog"

// Retain is what a compaction keeps of a log: every record of the DAGs
// that have not ended (a new AM attempt resumes them), and of the
// keepEnded DAGs that ended last (it lists them as they ended, as the AM
// that ran them did); the records of older ended DAGs go, as they went from
// the AM's memory (ebb.am.dag.retained.count; their detail is in the
// history). Without it a session's log, and the recorder's copy of it in
// the AM's memory, grew by every DAG it ever ran (a spec and the effective
// configuration each). Records keep their order; keepEnded < 0 keeps all.
func Retain(recs []recoverylog.Record, keepEnded int) []recoverylog.Record {
	if keepEnded < 0 {
		return recs
	}
	var endOrder []string
	for _, r := range recs {
		if r.DAGEnded != nil {
			endOrder = append(endOrder, r.DAGEnded.DAG)
		}
	}
	dropped := map[string]bool{}
	// A DAG ended twice (settled again by a later attempt) counts once, at
	// its last end.
	seen := map[string]bool{}
	kept := 0
	for i := len(endOrder) - 1; i >= 0; i-- {
		id := endOrder[i]
		if seen[id] {
			continue
		}
		seen[id] = true
		if kept < keepEnded {
			kept++
			continue
		}
		dropped[id] = true
	}
	out := recs[:0:0]
	for _, r := range recs {
		if !dropped[dagOf(r)] {
			out = append(out, r)
		}
	}
	return out
}

func dagOf(r recoverylog.Record) string {
	switch {
	case r.DAGAccepted != nil:
		return r.DAGAccepted.DAG
	case r.TaskSucceeded != nil:
		return r.TaskSucceeded.DAG
	case r.DAGEnded != nil:
		return r.DAGEnded.DAG
	}
	return ""
}
