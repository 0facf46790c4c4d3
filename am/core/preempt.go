package core

import (
	"fmt"
	"sort"
	"time"
)

// Preemption (issue 23): the ResourceManager warns before it kills
// containers to give another queue its share. The Core gives back what
// costs least before the kill and, while its queue is being preempted,
// asks for no more than the headroom the RM reports.

// PreemptionWarned: the RM's PreemptionMessage from one allocate. Strict
// lists workers (container ids) the RM will take whatever the AM does;
// under the negotiable contract the RM wants NegotiableMB back and would
// take the workers in Negotiable if the AM gives back nothing, but any
// containers of that size will do.
type PreemptionWarned struct {
	Strict       []string
	Negotiable   []string
	NegotiableMB int64
}

// HeadroomReported: the RM's headroom for this application (allocate's
// limit), sent when it changes.
type HeadroomReported struct{ MemoryMB int64 }

func (PreemptionWarned) event() {}
func (HeadroomReported) event() {}

const (
	// preemptBackoff: after a warning the queue counts as being preempted
	// this long; meanwhile new asks stay within the headroom. The
	// CapacityScheduler's policy marks more containers each round (3 s by
	// default) while the other queue still lacks its share, so the window
	// only has to outlast a few rounds and the kill that follows
	// (max_wait_before_kill, 15 s by default).
	preemptBackoff = 30 * time.Second
)

// preemptState is the Core's memory of preemption (zero value: none yet).
type preemptState struct {
	until      time.Time // the queue counts as preempted before then
	headroomMB int64
	headroomOK bool // a headroom was reported
	// warned: workers a warning named, by id, with their group and
	// memory: counted once, and a -102 that comes after the worker's
	// connection closed is still counted against its group.
	warned map[string]warnedWorker
	counts map[string]*PreemptCounts
}

type warnedWorker struct {
	group string
	mb    int64
}

// PreemptCounts are a group's preemption counters, for the UI, /metrics
// and `ebb dag status`.
type PreemptCounts struct {
	// Warned: containers the RM named in a preemption warning.
	Warned int
	// GivenBack: containers the AM gave back before a kill.
	GivenBack int
	// Lost: containers the cluster killed by preemption (YARN's exit
	// status -102, Kubernetes' PreemptionByScheduler).
	Lost int
	// Evicted: containers the cluster evicted (Kubernetes: a drain
	// through the Eviction API, the kubelet under node pressure, the
	// taint manager).
	Evicted int
	// SlowStartKilled: gathering consumers the AM killed itself so that
	// their queued producers could run (stall.go).
	SlowStartKilled int
}

func (p *preemptState) group(name string) *PreemptCounts {
	if p.counts == nil {
		p.counts = map[string]*PreemptCounts{}
	}
	if p.counts[name] == nil {
		p.counts[name] = &PreemptCounts{}
	}
	return p.counts[name]
}

// PreemptCounts returns a group's counters (zero when none).
func (c *Core) PreemptCounts(group string) PreemptCounts {
	if p := c.preempt.counts[group]; p != nil {
		return *p
	}
	return PreemptCounts{}
}

// PreemptionWarning gives back what the warning costs least. The strict
// contract's workers go as named. The negotiable demand is met by the
// cost rule (preemptVictims), where a named worker goes first among
// equally cheap ones: the CapacityScheduler names each container once,
// when it marks it, and kills it at the deadline while the other queue
// still lacks room, whatever else was given back. Named workers seen in
// an earlier warning count as demand already met, so an RM that repeats
// its message takes nothing more.
func (c *Core) PreemptionWarning(now time.Time, e PreemptionWarned) {
	c.advance(now)
	p := &c.preempt
	p.until = c.now.Add(preemptBackoff)
	if p.warned == nil {
		p.warned = map[string]warnedWorker{}
	}
	need := e.NegotiableMB
	named := map[string]bool{}
	for _, id := range append(append([]string(nil), e.Strict...), e.Negotiable...) {
		if old, seen := p.warned[id]; seen {
			need -= old.mb
			continue
		}
		if w, ok := c.workers[id]; ok {
			named[id] = true
			p.warned[id] = warnedWorker{group: w.group.info.Name, mb: w.info.MemoryMB}
			p.group(w.group.info.Name).Warned++
		}
	}
	c.logf("preemption warning: %d containers strict, %d negotiable (%d MB); %d MB still to give back",
		len(e.Strict), len(e.Negotiable), e.NegotiableMB, max(need, 0))
	for _, id := range e.Strict {
		if w, ok := c.workers[id]; ok && !w.stopping {
			c.giveBack(w, "named in the ResourceManager's strict preemption contract")
		}
	}
	if need > 0 {
		cands := c.preemptCandidates()
		for i := range cands {
			cands[i].Named = named[cands[i].ID]
		}
		for _, id := range preemptVictims(cands, need) {
			c.giveBack(c.workers[id], fmt.Sprintf("the ResourceManager wants %d MB back (negotiable preemption)", e.NegotiableMB))
		}
	}
	c.updateWanted()
}

// giveBack releases a worker before the RM kills it: its container goes
// back now, its attempts run again elsewhere and its outputs are
// recomputed, none counted as a task failure (as for a lost container).
func (c *Core) giveBack(w *workerRun, why string) {
	id := w.info.ID
	c.preempt.group(w.group.info.Name).GivenBack++
	reason := "given back before preemption: " + why
	c.emit(StopWorker{Worker: id, Graceful: false, Reason: reason})
	c.WorkerLost(c.now, id, reason)
}

// preemptLost counts a worker the RM killed by preemption: one it had
// warned of (its connection may have closed first), or one still here.
func (c *Core) preemptLost(id string) {
	if ww, ok := c.preempt.warned[id]; ok {
		c.preempt.group(ww.group).Lost++
	} else if w, ok := c.workers[id]; ok {
		c.preempt.group(w.group.info.Name).Lost++
	}
}

// SetHeadroom records the RM's headroom; a preempted queue's asks follow it.
func (c *Core) SetHeadroom(now time.Time, mb int64) {
	c.advance(now)
	c.preempt.headroomMB, c.preempt.headroomOK = mb, true
	c.updateWanted()
}

// preemptCand is what victim choice knows of a worker.
type preemptCand struct {
	ID       string
	MemoryMB int64
	// Needed: outputs it holds that a DAG still running may read (each
	// is the only copy: ebb keeps one).
	Needed int
	// Running: attempts it runs; Work: how long they have run, summed
	// (what a kill throws away).
	Running int
	Work    time.Duration
	// Named: the RM's warning named it (it will be killed anyway).
	Named bool
}

// preemptVictims picks workers worth at least needMB, cheapest first:
// idle workers, then workers holding no needed output by the least work
// lost (the youngest attempts), and workers holding needed outputs only
// when nothing else is left, fewest outputs first. Within each of these
// three classes a worker the RM named goes first. Ties go by id, so the
// choice replays. If all of them cannot cover needMB it returns them all:
// what the AM does not give back, the RM takes.
func preemptVictims(cands []preemptCand, needMB int64) []string {
	cs := append([]preemptCand(nil), cands...)
	class := func(c preemptCand) int {
		switch {
		case c.Needed > 0:
			return 2
		case c.Running > 0:
			return 1
		}
		return 0
	}
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if class(a) != class(b) {
			return class(a) < class(b)
		}
		if a.Named != b.Named {
			return a.Named
		}
		if a.Needed != b.Needed {
			return a.Needed < b.Needed
		}
		if a.Work != b.Work {
			return a.Work < b.Work
		}
		return a.ID < b.ID
	})
	var out []string
	for _, c := range cs {
		if needMB <= 0 {
			break
		}
		out = append(out, c.ID)
		needMB -= c.MemoryMB
	}
	return out
}

// preemptCandidates lists the workers that may be given back: every one
// not already stopping.
func (c *Core) preemptCandidates() []preemptCand {
	var out []preemptCand
	for _, id := range sortedKeys(c.workers) {
		w := c.workers[id]
		if w.stopping {
			continue
		}
		pc := preemptCand{ID: id, MemoryMB: w.info.MemoryMB, Running: len(w.running)}
		for d, n := range w.outputs {
			if !d.state.Done() {
				pc.Needed += n
			}
		}
		for _, a := range w.running {
			if !a.started.IsZero() && c.now.After(a.started) {
				pc.Work += c.now.Sub(a.started)
			}
		}
		out = append(out, pc)
	}
	return out
}

// preemptCap lowers a group's total while the queue is being preempted:
// new asks (beyond live workers) fit in what is left of the headroom,
// *budgetMB, which it lowers by what it allows. Without a reported
// headroom nothing new is asked for until the back-off ends.
func (c *Core) preemptCap(g *group, live, want int, budgetMB *int64) int {
	if !c.now.Before(c.preempt.until) || want <= live {
		return want
	}
	mb := max(g.info.MemoryMB, 1)
	room := 0
	if c.preempt.headroomOK && *budgetMB > 0 {
		room = int(*budgetMB / mb)
	}
	want = min(want, live+room)
	*budgetMB -= int64(want-live) * mb
	return want
}
