package core

import (
	"fmt"
	"strings"

	"github.com/ebb-am/ebb/scheduler"
)

// maxNotes bounds the notes a DAG keeps for its diagnostics: a vertex of
// thousands of tasks all killed for memory says so in a few lines.
const maxNotes = 8

// memoryExceeded handles an attempt its worker killed for using more
// memory than it asked for: unless the task has no attempt left, its next
// attempt asks for more (CoreOptions.MemoryRetry, capped by the group's
// worker size). It returns the note that says so, which becomes the
// attempt's diagnostics and one of its DAG's.
func (c *Core) memoryExceeded(a *attemptRun, usedMB int64, last bool) string {
	t := a.task
	asked := a.memoryMB()
	note := fmt.Sprintf("attempt %d of %s[%d] used %d MB of %d MB", a.number, t.vertex.spec.Name, t.index, usedMB, asked)
	if last {
		return note
	}
	workerMB := t.vertex.dag.group.info.MemoryMB
	next, atCap := c.opts.MemoryRetry.Next(asked, workerMB)
	t.askMB = next
	limit := fmt.Sprintf("the group's workers offer %d MB", workerMB)
	if m := c.opts.MemoryRetry.MaxMB; m > 0 && (workerMB <= 0 || m < workerMB) {
		limit = fmt.Sprintf("ebb.task.memory.retry.max.mb = %d", m)
	}
	uncapped, _ := scheduler.MemoryRetry{Factor: c.opts.MemoryRetry.Factor}.Next(asked, 0)
	switch {
	case atCap:
		note += fmt.Sprintf("; retrying with %d MB again, the most it may ask (%s): it will likely fail the same way", next, limit)
	case next < uncapped:
		note += fmt.Sprintf("; retrying with %d MB, the most it may ask (%s)", next, limit)
	default:
		note += fmt.Sprintf("; retrying with %d MB", next)
	}
	return note
}

// note adds a line to a DAG's diagnostics: the first maxNotes, then a
// count of the rest.
func (d *dagRun) note(s string) {
	if len(d.notes) < maxNotes {
		d.notes = append(d.notes, s)
		return
	}
	d.moreNotes++
}

// diagnostics are the DAG's notes, one a line, followed by why it ended.
func (d *dagRun) diagnostics() string {
	parts := append([]string(nil), d.notes...)
	if d.moreNotes > 0 {
		parts = append(parts, fmt.Sprintf("(%d more notes like these)", d.moreNotes))
	}
	if d.diag != "" {
		parts = append(parts, d.diag)
	}
	return strings.Join(parts, "\n")
}
