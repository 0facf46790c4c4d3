package core

import (
	"slices"
	"strings"
	"time"
)

// The journal keeps what the status UI shows that the live state forgets:
// attempts that have ended, the usage of each group over the last hour,
// and worker moves between groups. It is bounded and read through the
// methods in views.go.
//
// It takes no part in the Core's decisions and reads none of its state: it
// is an observer, fed plain values at the Core's edges only (journal
// feed, at the end of this file): the actions on their way out (Drain:
// attempts run and killed, workers moved), the reports coming in (an
// attempt's progress and end, a worker lost), and once per tick the usage
// of each group as the tick left it. The one note from inside is the
// Core's reading of an attempt killed for its memory (attemptNoted), which
// replaces the worker's diagnostics.

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
	// Speculative: a backup attempt for a straggler; Loser: killed because
	// the other attempt of its task finished first (no failure).
	Speculative bool `json:",omitempty"`
	Loser       bool `json:",omitempty"`
	// Status: the program's last status line (a Streaming
	// `reporter:status:`); Counters: what it counted.
	Status   string    `json:",omitempty"`
	Counters []Counter `json:",omitempty"`
}

// UsagePoint is one sample of a group for the autoscaler chart.
type UsagePoint struct {
	At time.Time // when the sample was taken
	// UsagePercent is the figure the autoscaler acts on (the window's
	// average or maximum); InstantPercent is this moment's.
	UsagePercent   float64
	InstantPercent float64 // usage at that moment
	State          string  // the autoscaler's state then
	Wanted         int     // workers the group asked its world for
	Running        int     // registered workers taking attempts
	Draining       int     // registered workers being emptied or stopped
	Nodes          int     // nodes holding its workers
	DrainingNodes  int     // nodes being emptied by a scale-in
	Queued         int     // attempts waiting for a worker
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
	// recs holds the attempt records, oldest first, in a ring: record
	// number seq (counted from 1 as attempts start) is at
	// recs[(head+seq-first)%len(recs)] while first <= seq < first+n. The
	// Core keeps each attempt's number (attemptRun.rec), so the reports
	// about a running attempt reach its record without a lookup by id: a
	// map by attempt id cost a string-keyed insert and delete per attempt
	// (13% of BenchmarkPlace10k's CPU with the records' allocation).
	recs  []AttemptRecord
	head  int   // the ring index of record first
	n     int   // records kept
	first int64 // the number of the oldest record kept
	// running: the numbers of each worker's records still RUNNING, so a
	// lost worker closes them. A worker runs a few attempts at a time: a
	// short list, where a set cost a map per worker made and dropped as
	// it filled and emptied.
	running   map[string][]int64
	usage     map[string][]UsagePoint
	lastUsage time.Time
	moves     []WorkerMove
}

// attemptStarted opens an attempt's record and returns its number;
// worker, container and node say where it runs ("" when the worker is
// unknown).
func (j *journal) attemptStarted(now time.Time, a *AttemptSpec, worker, container, node string) int64 {
	if j.recs == nil {
		j.running = map[string][]int64{}
		j.first = 1
	}
	// Trim in batches, down to the bound once it would be exceeded by
	// half, so an AM (or a simulation) running millions of attempts pays
	// O(1) per attempt.
	if j.n == maxAttemptRecords+maxAttemptRecords/2 {
		drop := j.n - maxAttemptRecords + 1 // the bound, with the one added below
		for k := 0; k < drop; k++ {
			j.recs[(j.head+k)%len(j.recs)] = AttemptRecord{} // let its strings go
		}
		j.head = (j.head + drop) % len(j.recs)
		j.first += int64(drop)
		j.n -= drop
	}
	r := AttemptRecord{ID: a.ID, DAG: a.DAGID, Vertex: a.Vertex, Task: a.Task, Number: a.Number, MemoryMB: a.MemoryMB,
		Worker: worker, Container: container, Node: node, Start: now, State: "RUNNING", Speculative: a.Speculative}
	if len(j.recs) < maxAttemptRecords+maxAttemptRecords/2 { // still filling: head is 0
		j.recs = append(j.recs, r)
	} else {
		j.recs[(j.head+j.n)%len(j.recs)] = r
	}
	seq := j.first + int64(j.n)
	j.n++
	j.running[worker] = append(j.running[worker], seq)
	return seq
}

// record is record number seq, or nil when it was never kept (0: the
// attempt's start was not observed) or has been trimmed.
func (j *journal) record(seq int64) *AttemptRecord {
	if seq < j.first || seq >= j.first+int64(j.n) {
		return nil
	}
	return &j.recs[(j.head+int(seq-j.first))%len(j.recs)]
}

// find is the number of the newest record of attempt id (0: none). Only
// kills the Core did not number and the status views look up by id; they
// look for recent attempts, so the walk starts at the newest.
func (j *journal) find(id string) int64 {
	for k := j.n - 1; k >= 0; k-- {
		if j.recs[(j.head+k)%len(j.recs)].ID == id {
			return j.first + int64(k)
		}
	}
	return 0
}

var resultNames = map[AttemptResult]string{
	AttemptSucceeded: "SUCCEEDED", AttemptFailed: "FAILED", AttemptKilled: "KILLED", AttemptFetchFailed: "FETCH_FAILED",
}

// attemptReported notes a worker's report about record seq; the first
// final one wins.
func (j *journal) attemptReported(now time.Time, seq int64, u AttemptUpdate) {
	r := j.record(seq)
	if r == nil || r.State != "RUNNING" {
		return
	}
	if u.Status != "" {
		r.Status = u.Status
	}
	switch u.Result {
	case AttemptRunning:
		r.Progress = u.Progress
		return
	case AttemptCommitPending:
		return
	}
	j.close(seq, r, resultNames[u.Result], now, u.Diagnostics)
	r.ExitCode = u.ExitCode
	r.Counters = u.Counters
	if u.Result == AttemptSucceeded {
		r.Progress = 1
	}
}

// close ends RUNNING record seq, r.
func (j *journal) close(seq int64, r *AttemptRecord, state string, now time.Time, diag string) {
	r.State, r.End, r.Diagnostics = state, now, diag
	ids := j.running[r.Worker]
	if k := slices.Index(ids, seq); k >= 0 {
		if len(ids) == 1 {
			delete(j.running, r.Worker)
			return
		}
		j.running[r.Worker] = slices.Delete(ids, k, k+1)
	}
}

// attemptNoted replaces a finished attempt's diagnostics with the Core's
// reading of them (a kill for memory and the retry it leads to).
func (j *journal) attemptNoted(seq int64, diag string) {
	if r := j.record(seq); r != nil {
		r.Diagnostics = diag
	}
}

// attemptStopped closes an attempt that ended without a final report from
// its worker: the AM killed it.
func (j *journal) attemptStopped(now time.Time, seq int64, why string) {
	r := j.record(seq)
	if r == nil || r.State != "RUNNING" {
		return
	}
	j.close(seq, r, "KILLED", now, why)
}

// workerLost closes the records of the attempts a lost worker still ran,
// in id order (the map's order would do, but records should not depend
// on it).
func (j *journal) workerLost(now time.Time, worker, reason string) {
	seqs := slices.Clone(j.running[worker])
	slices.SortFunc(seqs, func(x, y int64) int { return strings.Compare(j.idOf(x), j.idOf(y)) })
	for _, seq := range seqs {
		j.attemptStopped(now, seq, "stopped without a report: its worker was lost ("+reason+")")
	}
}

// idOf is record seq's attempt id ("" once trimmed).
func (j *journal) idOf(seq int64) string {
	if r := j.record(seq); r != nil {
		return r.ID
	}
	return ""
}

func (j *journal) moved(now time.Time, m MoveWorker) {
	j.moves = append(j.moves, WorkerMove{At: now, Worker: m.Worker, From: m.From, To: m.Group.Name})
	if len(j.moves) > maxMoves {
		j.moves = j.moves[len(j.moves)-maxMoves:]
	}
}

// The journal's feed: the Core's edges hand it plain values, and nothing
// else writes it.

// observe records what the journal learns from an action on its way out.
func (c *Core) observe(now time.Time, a Action) {
	switch a := a.(type) {
	case *RunAttempt:
		c.attemptRunObserved(now, a)
	case KillAttempt:
		seq := c.journal.find(a.AttemptID)
		c.journal.attemptStopped(now, seq, "killed by the AM: "+a.Reason)
		if r := c.journal.record(seq); r != nil && a.Loser {
			r.Loser = true
		}
	case MoveWorker:
		c.journal.moved(now, a)
	}
}

// attemptRunObserved opens the record of the attempt a runs and gives
// the attempt its number.
func (c *Core) attemptRunObserved(now time.Time, a *RunAttempt) {
	var worker, container, node string
	w := a.w // registered under its id unless lost since: ids are not reused
	if w == nil {
		w = c.workers[a.Worker]
	}
	if w != nil && !w.gone {
		worker, container, node = a.Worker, w.info.ContainerID, w.node.id
	}
	a.run.rec = c.journal.attemptStarted(now, &a.Attempt, worker, container, node)
}

// attemptAdoptedObserved opens the record of an attempt this AM attempt
// adopted from a rejoining worker, so that the attempt lists show it and
// its end. Its start is when the worker took it (started), as the worker
// says: the earlier AM attempt's record of it went with that attempt's
// journal. A start not said, or later than now (the worker's clock is
// not the AM's), is the adoption.
func (c *Core) attemptAdoptedObserved(now time.Time, at *attemptRun, started time.Time) {
	w := at.worker
	spec := AttemptSpec{ID: at.id, DAGID: at.task.vertex.dag.id, Vertex: at.task.vertex.spec.Name, Task: at.task.index,
		Number: at.number, MemoryMB: at.memoryMB()}
	if started.IsZero() || started.After(now) {
		started = now
	}
	at.rec = c.journal.attemptStarted(started, &spec, w.info.ID, w.info.ContainerID, w.node.id)
}

// sampleUsage hands the journal each group's usage as the tick left it,
// at the autoscaler's interval (usageEvery when autoscaling is off).
func (c *Core) sampleUsage() {
	every := c.opts.Autoscale.Interval
	if every <= 0 {
		every = usageEvery
	}
	if !c.journal.usageDue(c.now, every) {
		return
	}
	for _, g := range c.gorder {
		c.journal.addUsage(c.now, g.info.Name, c.usagePoint(g))
	}
}

// usageDue reports whether a usage sample is due at now, and if so counts
// it as taken.
func (j *journal) usageDue(now time.Time, every time.Duration) bool {
	if !j.lastUsage.IsZero() && now.Sub(j.lastUsage) < every {
		return false
	}
	j.lastUsage = now
	return true
}

// addUsage adds a group's point to the chart history and forgets points
// older than usageSpan.
func (j *journal) addUsage(now time.Time, group string, p UsagePoint) {
	if j.usage == nil {
		j.usage = map[string][]UsagePoint{}
	}
	pts := append(j.usage[group], p)
	cut := 0
	for cut < len(pts) && now.Sub(pts[cut].At) > usageSpan {
		cut++
	}
	j.usage[group] = pts[cut:]
}
