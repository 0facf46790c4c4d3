package core

import (
	"fmt"
	"time"
)

// ScalingMode is how the Core decides how many workers a group wants.
// Each is a configuration of the same Core, so `ebb sim` compares them on
// equal terms.
type ScalingMode int

const (
	// ScaleOnDemand: as many workers as the queued attempts need, at once;
	// idle workers leave after the idle timeout (mr3.enable.auto.scaling=false).
	ScaleOnDemand ScalingMode = iota
	// ScaleAutoscaler: the STABLE / SCALE_OUT / SCALE_IN state machine per
	// group (mr3.enable.auto.scaling=true).
	ScaleAutoscaler
	// ScaleSparkDA: Spark's dynamic allocation, as documented: after a
	// backlog of BacklogTimeout ask for 1 more worker, then 2, 4, ... every
	// BacklogTimeout while the backlog lasts; idle workers leave after the
	// idle timeout unless they hold output a running DAG needs.
	ScaleSparkDA
)

var scalingNames = []string{"on-demand", "autoscaler", "spark-da"}

func (m ScalingMode) String() string {
	if int(m) < len(scalingNames) {
		return scalingNames[m]
	}
	return fmt.Sprintf("ScalingMode(%d)", int(m))
}

// sparkDA is one group's dynamic-allocation state.
type sparkDA struct {
	backlogSince time.Time // when the queue last became non-empty
	lastAdd      time.Time
	nextAdd      int // workers the next round adds (1, 2, 4, ...)
	target       int
}

// wantSparkDA is the group's wanted total under ScaleSparkDA.
func (c *Core) wantSparkDA(g *group, live int) int {
	s := &g.sda
	if g.queue.Len() == 0 {
		*s = sparkDA{nextAdd: 1, target: live}
		return live
	}
	if s.backlogSince.IsZero() {
		s.backlogSince = c.now
		s.nextAdd = 1
		s.target = live
	}
	backlog := c.opts.BacklogTimeout
	if c.now.Sub(s.backlogSince) >= backlog && c.now.Sub(s.lastAdd) >= backlog {
		// Never more than the queue can use.
		need := live + int((g.queuedMB+g.info.MemoryMB-1)/g.info.MemoryMB)
		s.target = min(max(s.target, live)+s.nextAdd, need)
		// Double, but never past what any queue could use (a long backlog
		// would otherwise overflow the ramp to zero).
		s.nextAdd = min(s.nextAdd*2, 1<<20)
		s.lastAdd = c.now
	}
	return max(s.target, live)
}
