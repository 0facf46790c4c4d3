package core

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// Speculative execution, after LATE (Zaharia et al., "Improving MapReduce
// Performance in Heterogeneous Environments", OSDI 2008): a straggling
// task gets a backup attempt on another node; the first of the two to
// finish is the task's output and the other is killed. The loser is no
// failure, and only the winner's output is ever registered (t.output), so
// consumers read one copy. A sink's copy is committed by its worker only
// once the Core grants it (CommitGranted): the first attempt to ask wins
// the task, the other is killed before it publishes anything.
//
// Each tick (Core.Tick) and per vertex with speculation on:
//   - every running attempt that has run MinRuntime is judged by its
//     estimated run time: its run time at its last progress report over
//     that progress (Hadoop's LegacyTaskRuntimeEstimator; infinite with
//     no progress), kept as a rate, progress per second; a consumer
//     started under slow start counts its run time from its last input;
//   - the vertex's median takes those rates and its finished attempts'
//     (1 / run time); a straggler's rate times Multiplier is below it:
//     its estimated run time is more than Multiplier (1.5) times the
//     median, Spark's spark.speculation.multiplier. Spark takes the median
//     of finished tasks only, once spark.speculation.quantile (75%) of
//     them finished, a gate that never opens while a third of the tasks
//     straggle; running attempts' estimates let a straggler be found
//     while the others still run. LATE's 25th percentile of rates
//     (SlowTaskThreshold, this rule's predecessor here) fell among the
//     stragglers' own rates in that case;
//   - a straggler is a candidate when its time left (estimated run time
//     minus run time) is longer than a new attempt would take (the
//     vertex's mean finished run time, else the median's estimate):
//     Hadoop's DefaultSpeculator compares the attempt's estimated end
//     with a replacement's started now and speculates only where the
//     replacement would end first;
//   - candidates go by that gain, largest first (the same order as time
//     left, the new attempt's time being the vertex's), while fewer than
//     SpeculationOptions.allowed of the vertex's tasks run a backup;
//   - a straggler's node is slow for its DAG from then on (dagRun.slowNodes,
//     LATE's rule against slow nodes): a backup goes to a free worker of
//     the DAG's group on none of them, and only when nothing is queued in
//     the group: backups take room no first attempt wants; the DAG's new
//     attempts avoid them too (slownodes.go). With no such worker,
//     on-demand scaling asks for one (group.backupMB), unless an idle
//     worker already sits on a slow node.

// SpeculationCounts are backup attempts and how their races ended.
type SpeculationCounts struct {
	Launched int // backups started
	Won      int // backups that finished first: the original was killed
	Lost     int // backups killed because the original finished first
}

// speculative reports whether v's stragglers get backups: the vertex's own
// setting, else the AM's.
func (v *vertexRun) speculative(o SpeculationOptions) bool {
	if s := v.spec.Speculative; s != nil {
		return *s
	}
	return o.Enabled
}

// straggler is a running attempt's standing in its vertex.
type straggler struct {
	a        *attemptRun
	rate     float64 // progress per second
	left     float64 // seconds, +Inf at rate 0
	elapsed  time.Duration
	eligible bool // no backup yet, not committing
}

// speculate is Tick's stage that starts backups.
func (c *Core) speculate() {
	for _, g := range c.gorder {
		g.backupMB = 0
	}
	var avoid []string
	for _, d := range c.active {
		if d.state != DAGRunning || d.running == 0 || d.group.queue.Len() > 0 {
			continue
		}
		asked := false
		for _, v := range d.vertices {
			if v.succeeded < len(v.tasks) && v.speculative(c.opts.Speculation) {
				asked = c.speculateVertex(v) || asked
			}
		}
		if asked {
			avoid = append(avoid, d.slowNodeList()...)
		}
	}
	c.avoidForBackups(avoid)
}

// avoidForBackups keeps the world's new workers off the slow nodes of
// DAGs whose backups asked for room: a worker that landed there would be
// no use to the backup (LATE never runs one on a slow node), and the next
// ask could land there again. Every group's total is told again when the
// list changes, so the world's Avoid list follows it (resendWants).
func (c *Core) avoidForBackups(nodes []string) {
	sort.Strings(nodes)
	nodes = slices.Compact(nodes)
	if slices.Equal(nodes, c.backupAvoid) {
		return
	}
	c.backupAvoid = nodes
	for _, g := range c.gorder {
		g.wanted = -1 // updateWanted, later in the tick, tells every total
	}
}

// judged is the standing of v's running attempts that have run
// MinRuntime, and how many of v's tasks may still get a backup.
func (c *Core) judged(v *vertexRun) (runs []straggler, room int) {
	o := c.opts.Speculation
	room = o.allowed(len(v.tasks))
	for _, t := range v.tasks {
		if t.backup != nil {
			room--
		}
		a := t.current
		if t.state != taskRunning || a == nil || a.worker == nil || a.gathering {
			continue
		}
		// A consumer started under slow start is judged from when its
		// last input came: waiting for the producers is not its work.
		el := c.now.Sub(a.started) - a.gathered
		if el < o.MinRuntime || el <= 0 {
			continue
		}
		// An attempt granted its commit has finished its work: a backup
		// could only lose (commitAsked).
		s := straggler{a: a, elapsed: el, left: math.Inf(1), eligible: t.backup == nil && !a.committing}
		if ran := a.progressRan - a.gathered; a.progress > 0 && ran > 0 {
			s.rate = a.progress / ran.Seconds()
			s.left = 1/s.rate - el.Seconds()
		}
		runs = append(runs, s)
	}
	return runs, room
}

// speculateVertex starts backups for v's worst stragglers, within its
// cap, and reports whether one asked the world for room.
func (c *Core) speculateVertex(v *vertexRun) (asked bool) {
	runs, room := c.judged(v)
	if len(runs) == 0 {
		return false
	}
	rates := make([]float64, 0, len(runs)+len(v.doneRates))
	for _, s := range runs {
		rates = append(rates, s.rate)
	}
	rates = append(rates, v.doneRates...)
	sort.Float64s(rates)
	median := percentile(rates, 50)
	fresh := v.freshSeconds(median)
	d := v.dag
	var cands []straggler
	for _, s := range runs {
		if s.rate*c.opts.Speculation.Multiplier >= median {
			continue
		}
		d.markSlow(s.a.worker.node)
		if s.eligible && s.left > fresh {
			cands = append(cands, s)
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].before(cands[j]) })
	for _, s := range cands {
		if room <= 0 {
			return asked
		}
		room--
		if w := c.backupWorker(s.a); w != nil {
			c.startBackup(s.a, w, s.left)
		} else if !roomOnSlow(d, s.a.memoryMB()) {
			// No room: the group asks for it (on-demand scaling, as
			// MapReduce's AM asks a container for a speculative attempt).
			// Not while an idle worker sits on a slow node: one that came
			// for a backup and landed there, which asking again could
			// repeat.
			d.group.backupMB += s.a.memoryMB()
			asked = true
		}
	}
	return asked
}

// roomOnSlow reports whether an idle worker of d's group with room for mem
// sits on one of d's slow nodes.
func roomOnSlow(d *dagRun, mem int64) bool {
	for w := range d.group.workers {
		if d.slow(w.node.id) && len(w.running) == 0 && !w.draining && w.takes(d) && w.freeMB >= mem {
			return true
		}
	}
	return false
}

// before orders candidates: largest time left first; then the longest
// running; then task index, so runs replay.
func (s straggler) before(o straggler) bool {
	if s.left != o.left {
		return s.left > o.left
	}
	if s.elapsed != o.elapsed {
		return s.elapsed > o.elapsed
	}
	return s.a.task.index < o.a.task.index
}

// percentile is the p-th percentile of sorted xs, interpolated between
// ranks.
func percentile(xs []float64, p int) float64 {
	pos := float64(p) / 100 * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

// freshSeconds is how long a new attempt of v is expected to take: its
// mean finished run time (Hadoop's estimatedNewAttemptRuntime), else
// 1 / the median rate (0: nothing to go by, so any time left will do).
func (v *vertexRun) freshSeconds(medianRate float64) float64 {
	if v.doneN > 0 {
		return (v.doneTime / time.Duration(v.doneN)).Seconds()
	}
	if medianRate > 0 {
		return 1 / medianRate
	}
	return 0
}

// backupWorker is the group's worker, best fit first, with room for a
// backup of a on none of its DAG's slow nodes (a's own among them).
func (c *Core) backupWorker(a *attemptRun) *workerRun {
	d := a.task.vertex.dag
	g := d.group
	mem := a.memoryMB()
	var best *workerRun
	for _, pn := range g.pnodes {
		if d.slow(pn.ID) {
			continue
		}
		for _, w := range g.workersOn(pn.ID) {
			if w.draining || !w.takes(d) || w.freeMB < mem {
				continue
			}
			if best == nil || w.freeMB < best.freeMB || (w.freeMB == best.freeMB && w.info.ID < best.info.ID) {
				best = w
			}
		}
	}
	return best
}

// startBackup runs a backup of the straggler a on w.
func (c *Core) startBackup(a *attemptRun, w *workerRun, left float64) {
	t := a.task
	d := t.vertex.dag
	b := &attemptRun{
		id:          attemptID(t, int(t.attempts)),
		task:        t,
		number:      int(t.attempts),
		askMB:       a.askMB,
		speculative: true,
	}
	t.attempts++
	c.attempt[b.id] = b
	t.becomeSpeculated(b)
	d.speculation.Launched++
	c.specCount.Launched++
	c.logf("attempt %s on node %s straggles (progress %.2f after %s, about %.0fs left): backup %s on node %s",
		a.id, a.worker.node.id, a.progress, c.now.Sub(a.started).Round(time.Second), left, b.id, w.node.id)
	c.occupy(b, w)
	c.emit(&RunAttempt{Worker: w.info.ID, Attempt: c.attemptSpec(b), w: w, run: b})
}

// rival is the other attempt racing a for its task, or nil.
func (t *taskRun) rival(a *attemptRun) *attemptRun {
	switch {
	case t.backup == nil:
		return nil
	case a == t.current:
		return t.backup
	case a == t.backup:
		return t.current
	}
	return nil
}

// dropAttempt removes attempt a, ended without output, from its task: the
// task goes on with a's rival when one runs, else it waits to be queued
// again. It reports whether a rival goes on.
func (c *Core) dropAttempt(a *attemptRun) bool {
	t := a.task
	c.detach(a)
	delete(c.attempt, a.id)
	if r := t.rival(a); r != nil {
		t.becomeSingle(r)
		return true
	}
	t.becomeWaiting()
	return false
}

// killLoser stops the rival of winner, the attempt whose output the task
// keeps: the loser is killed, not failed, and its output never counts.
func (c *Core) killLoser(winner *attemptRun) {
	t := winner.task
	l := t.rival(winner)
	if l == nil {
		return
	}
	d := t.vertex.dag
	if winner.speculative {
		d.speculation.Won++
		c.specCount.Won++
	} else {
		d.speculation.Lost++
		c.specCount.Lost++
	}
	if l.worker != nil {
		c.emit(KillAttempt{Worker: l.worker.info.ID, AttemptID: l.id, Loser: true,
			Reason: fmt.Sprintf("attempt %s of the same task finished first", winner.id)})
	}
	c.detach(l)
	delete(c.attempt, l.id)
	t.becomeSingle(winner)
}

// commitAsked answers a sink attempt that asks to commit: the first of
// racing attempts to ask wins the task and is granted, and the other is
// killed before it can publish anything (its later ask finds no attempt).
// A granted attempt gets no backup (speculateVertex), so no rival appears
// while it commits. A repeated ask (the worker repeats it until answered)
// is granted again.
func (c *Core) commitAsked(a *attemptRun) {
	c.killLoser(a)
	a.committing = true
	c.emit(GrantCommit{Worker: a.worker.info.ID, AttemptID: a.id})
}

// Speculation counts the backup attempts of every DAG this Core ran.
func (c *Core) Speculation() SpeculationCounts { return c.specCount }
