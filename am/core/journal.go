package core

import (
	"time"
)

// The journal keeps what the status UI shows that the live state forgets:
// attempts that have ended, the usage of each group over the last hour,
// and worker moves between groups. It is bounded, fed only from inside the
// Core (so it sees exactly the Core's decisions), and read through the
// methods in views.go.

// AttemptRecord is one attempt's life as operators see it.
type AttemptRecord struct {
	ID          string
	DAG         string
	Vertex      string
	Task        int
	Number      int
	MemoryMB    int64 // what it asked for (more than its vertex's after a kill for memory)
	Worker      string
	Container   string
	Node        string
	Start       time.Time
	End         time.Time // zero while it runs
	State       string    // RUNNING, SUCCEEDED, FAILED, KILLED, FETCH_FAILED
	ExitCode    int
	Diagnostics string
	Progress    float64
}

// UsagePoint is one sample of a group for the autoscaler chart.
type UsagePoint struct {
	At time.Time
	// UsagePercent is the figure the autoscaler acts on (the window's
	// average or maximum); InstantPercent is this moment's.
	UsagePercent   float64
	InstantPercent float64
	State          string
	Wanted         int // workers the group asked its world for
	Running        int // registered workers taking attempts
	Draining       int // registered workers being emptied or stopped
	Nodes          int
	DrainingNodes  int // nodes being emptied by a scale-in
	Queued         int
}

// WorkerMove is a worker handed from one group to another (recycling).
type WorkerMove struct {
	At     time.Time
	Worker string
	From   string
	To     string
}

const (
	maxAttemptRecords = 20000
	maxMoves          = 1000
	usageSpan         = time.Hour
	// usageEvery samples groups for the chart when the autoscaler's own
	// interval is not set (autoscaling off).
	usageEvery = 5 * time.Second
)

type journal struct {
	attempts  map[string]*AttemptRecord
	order     []string // attempt ids, oldest first, for trimming
	usage     map[string][]UsagePoint
	lastUsage time.Time
	moves     []WorkerMove
}

func (j *journal) attemptStarted(now time.Time, a AttemptSpec, w *workerRun) {
	if j.attempts == nil {
		j.attempts = map[string]*AttemptRecord{}
	}
	r := &AttemptRecord{ID: a.ID, DAG: a.DAGID, Vertex: a.Vertex, Task: a.Task, Number: a.Number, MemoryMB: a.MemoryMB, Start: now, State: "RUNNING"}
	if w != nil {
		r.Worker, r.Container, r.Node = w.info.ID, w.info.ContainerID, w.node.id
	}
	j.attempts[a.ID] = r
	j.order = append(j.order, a.ID)
	// Trim in batches, down to the bound once it is exceeded by half, so
	// an AM (or a simulation) running millions of attempts pays O(1) per
	// attempt, not a copy of the whole list each time.
	if len(j.order) > maxAttemptRecords+maxAttemptRecords/2 {
		drop := len(j.order) - maxAttemptRecords
		for _, id := range j.order[:drop] {
			delete(j.attempts, id)
		}
		j.order = append([]string(nil), j.order[drop:]...)
	}
}

var resultNames = map[AttemptResult]string{
	AttemptSucceeded: "SUCCEEDED", AttemptFailed: "FAILED", AttemptKilled: "KILLED", AttemptFetchFailed: "FETCH_FAILED",
}

// attemptReported notes a worker's report; the first final one wins.
func (j *journal) attemptReported(now time.Time, u AttemptUpdate) {
	r, ok := j.attempts[u.AttemptID]
	if !ok || r.State != "RUNNING" {
		return
	}
	if u.Result == AttemptRunning {
		r.Progress = u.Progress
		return
	}
	r.State, r.End, r.ExitCode, r.Diagnostics = resultNames[u.Result], now, u.ExitCode, u.Diagnostics
	if u.Result == AttemptSucceeded {
		r.Progress = 1
	}
}

// attemptNoted replaces a finished attempt's diagnostics with the Core's
// reading of them (a kill for memory and the retry it leads to).
func (j *journal) attemptNoted(id, diag string) {
	if r, ok := j.attempts[id]; ok {
		r.Diagnostics = diag
	}
}

// attemptStopped closes an attempt that ended without a final report from
// its worker: the AM killed it, or its worker was lost.
func (j *journal) attemptStopped(now time.Time, id, why string) {
	r, ok := j.attempts[id]
	if !ok || r.State != "RUNNING" {
		return
	}
	r.State, r.End, r.Diagnostics = "KILLED", now, why
}

func (j *journal) moved(now time.Time, m MoveWorker) {
	j.moves = append(j.moves, WorkerMove{At: now, Worker: m.Worker, From: m.From, To: m.Group.Name})
	if len(j.moves) > maxMoves {
		j.moves = j.moves[len(j.moves)-maxMoves:]
	}
}

// observe records what the journal learns from an action on its way out.
func (c *Core) observe(now time.Time, a Action) {
	switch a := a.(type) {
	case RunAttempt:
		c.journal.attemptStarted(now, a.Attempt, c.workers[a.Worker])
	case KillAttempt:
		c.journal.attemptStopped(now, a.AttemptID, "killed by the AM: "+a.Reason)
	case MoveWorker:
		c.journal.moved(now, a)
	}
}

// sampleUsage adds a point per group to the chart history, at the
// autoscaler's interval, and forgets points older than an hour.
func (c *Core) sampleUsage() {
	every := c.opts.Autoscale.Interval
	if every <= 0 {
		every = usageEvery
	}
	j := &c.journal
	if !j.lastUsage.IsZero() && c.now.Sub(j.lastUsage) < every {
		return
	}
	j.lastUsage = c.now
	if j.usage == nil {
		j.usage = map[string][]UsagePoint{}
	}
	for _, g := range c.gorder {
		p := c.usagePoint(g)
		pts := append(j.usage[g.info.Name], p)
		cut := 0
		for cut < len(pts) && c.now.Sub(pts[cut].At) > usageSpan {
			cut++
		}
		j.usage[g.info.Name] = pts[cut:]
	}
}

func (c *Core) usagePoint(g *group) UsagePoint {
	p := UsagePoint{At: c.now, State: "STABLE", Wanted: g.wanted, Nodes: len(g.byNode), Queued: g.queue.Len()}
	for id := range g.byNode {
		if n := c.nodes[id]; n != nil && n.draining {
			p.DrainingNodes++
		}
	}
	var running, offered int64
	for w := range g.workers {
		if w.draining || w.stopping {
			p.Draining++
		} else {
			p.Running++
		}
		running += w.info.MemoryMB - w.freeMB
		offered += w.info.MemoryMB
	}
	if offered > 0 {
		p.InstantPercent = 100 * float64(running) / float64(offered)
	}
	p.UsagePercent = p.InstantPercent
	if g.as != nil {
		p.State = g.as.a.State().String()
		if u, ok := g.as.a.Usage(); ok {
			p.UsagePercent = u
		}
	}
	return p
}
