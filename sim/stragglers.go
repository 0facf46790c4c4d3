package sim

import (
	"fmt"
	"sort"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// Stragglers: a cluster where some nodes are slow (a noisy neighbour, a
// failing disk), so that speculative execution (ebb.speculation.*) has
// something to do and its effect can be measured. Every Every-th node the
// run meets (the Every-th, the 2×Every-th, ...) runs its attempts Factor
// times slower than the contention model alone would.
type Stragglers struct {
	Every  int     // 0: no slow node
	Factor float64 // ≥ 1
}

// Validate says what is wrong with s.
func (s Stragglers) Validate() error {
	if s.Every < 0 {
		return fmt.Errorf("sim: slow nodes every %d: want 0 (none) or more", s.Every)
	}
	if s.Every > 0 && s.Factor < 1 {
		return fmt.Errorf("sim: slow-node factor %g: want 1 or more", s.Factor)
	}
	return nil
}

// slowNodes numbers nodes in the order attempts first run on them, which
// the run's events fix, so the same run makes the same nodes slow.
type slowNodes struct {
	seen map[string]bool // node -> slow
}

// speed is the share of full speed node's attempts get (1 / Factor on a
// slow node).
func (s *slowNodes) speed(st Stragglers, node string) float64 {
	if st.Every <= 0 {
		return 1
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	slow, ok := s.seen[node]
	if !ok {
		slow = (len(s.seen)+1)%st.Every == 0
		s.seen[node] = slow
	}
	if slow {
		return 1 / st.Factor
	}
	return 1
}

// reportProgress tells the core each working attempt's progress, as a
// worker's progress reports do: speculation reads it. Only when the
// policy speculates, since it costs a report per running attempt per tick.
func (e *engine) reportProgress(now time.Time) {
	if !e.policy.Core.Speculation.Enabled {
		return
	}
	ids := make([]string, 0, len(e.running))
	for id, r := range e.running {
		if !r.gathering && r.total > 0 {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := e.running[id]
		left := max(r.remaining-now.Sub(r.since).Seconds()*r.rate, 0)
		e.core.AttemptUpdate(now, core.AttemptUpdate{AttemptID: id, Result: core.AttemptRunning, Progress: 1 - left/r.total})
	}
}
