package core

import (
	"fmt"
	"time"
)

// Retention bounds what the Core keeps of finished DAGs, so that a session
// running a million DAGs holds a bounded state (as Spark's UI does with
// spark.ui.retainedJobs). A finished DAG stays whole (spec, vertices,
// tasks) while it is among the newest RetainDAGs finished ones and, when
// RetainDAGsFor is set, younger than that; then it is compacted: the whole
// run is dropped and a DAGStatus without vertices stays, so status and
// list still answer for it. Past RetainSummaries the summary goes too,
// oldest first, and the DAG is forgotten (the AM's history still has it).
//
// Only finished DAGs are ever compacted: a SUBMITTED or RUNNING DAG is in
// c.active, never in c.ended. The decision is taken on a DAG's end and on
// Tick, from the Core's own now: no goroutine, no clock.

// summaries are the compacted DAGs, oldest first, and by id.
type summaries struct {
	order []*DAGStatus
	byID  map[string]*DAGStatus
}

func (s *summaries) add(st DAGStatus) {
	if s.byID == nil {
		s.byID = map[string]*DAGStatus{}
	}
	p := &st
	s.order = append(s.order, p)
	s.byID[st.ID] = p
}

// trim forgets the oldest summaries beyond keep. Past the bound every
// ended DAG forgets one, so trim clears the dropped entries and slices
// past them: add's append copies the rest to a fresh array once the
// slice's room runs out, O(1) amortised. A copy of all keep entries on
// every DAG's end was a fifth of what a 24k-job replay allocated.
func (s *summaries) trim(keep int) {
	if len(s.order) <= keep {
		return
	}
	drop := len(s.order) - keep
	for _, p := range s.order[:drop] {
		delete(s.byID, p.ID)
	}
	clear(s.order[:drop]) // the backing array must not hold the dropped summaries
	s.order = s.order[drop:]
}

// retain compacts the finished DAGs beyond the count or the age, then
// forgets summaries beyond theirs.
func (c *Core) retain() {
	keep := 0
	for i, d := range c.ended {
		old := c.opts.RetainDAGsFor > 0 && c.now.Sub(d.finish) >= c.opts.RetainDAGsFor
		if len(c.ended)-i > c.opts.RetainDAGs || old {
			c.compact(d)
			continue
		}
		c.ended[keep] = d
		keep++
	}
	if keep < len(c.ended) {
		clear(c.ended[keep:]) // the compacted runs must not stay reachable
		c.ended = c.ended[:keep]
	}
	c.summaries.trim(max(0, c.opts.RetainSummaries-len(c.ended)))
}

// compact replaces a finished DAG's run by its summary.
func (c *Core) compact(d *dagRun) {
	s := c.status(d)
	s.Vertices = nil
	s.Compacted = true
	delete(c.dags, d.id)
	c.summaries.add(s)
}

// summary is a compacted DAG's status.
func (c *Core) summary(id string) (DAGStatus, bool) {
	if p, ok := c.summaries.byID[id]; ok {
		return *p, true
	}
	return DAGStatus{}, false
}

// DAGSettled records a finished DAG's final state as its clients were told
// it: the world may have changed it after the Core ended the DAG (a
// succeeded DAG whose output could not be committed failed). Whole or
// compacted, the DAG answers with it from then on; a forgotten one is
// ignored.
func (c *Core) DAGSettled(now time.Time, id string, st DAGState, diag string) error {
	c.advance(now)
	if !st.Done() {
		return fmt.Errorf("DAG %s settled as %s: only an end state settles a DAG", id, st)
	}
	if d, ok := c.dags[id]; ok {
		if !d.state.Done() {
			return fmt.Errorf("DAG %s settled as %s while it is %s", id, st, d.state)
		}
		d.state, d.diag, d.notes, d.moreNotes = st, diag, nil, 0
		return nil
	}
	if p, ok := c.summaries.byID[id]; ok {
		p.State, p.Diagnostics = st, diag
	}
	return nil
}
