package sim

import (
	"sort"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
)

// The contention model: attempts on one node share its CPU and I/O. When
// the running attempts' summed CPU (or I/O) profile exceeds the node's 1.0,
// each of them progresses at 1 / that sum (processor sharing), so
// over-packing a node costs time as on a real cluster. Memory is not
// shared this way: the core never over-commits it by reservation. Under
// Policy.PaperHardware (the RAS experiment) the profiles' memory can
// exceed the node, and paging and disk seeks cost too
// (contention_paper.go). Attempts without a profile neither slow down nor
// slow others.
//
// A consumer in its shuffle phase (slow start) copies map outputs as the
// maps placed produce them, with at most parallelCopies copies at once
// (RAS-PAPER.md: the shuffle I/O is per map placed, capped by the copy
// threads). Its shuffle profile's I/O is read as that cap: with k of its
// DAG's producers running it uses min(k, parallelCopies) / parallelCopies
// of it. Its CPU and memory are as given.

// parallelCopies is MapReduce's mapreduce.reduce.shuffle.parallelcopies
// default (the worker's limit too).
const parallelCopies = 5

type running struct {
	id        string
	job       string // the trace's job id
	node      string
	profile   *dag.Profile
	remaining float64 // seconds of work left at full speed
	total     float64 // seconds of work at full speed, for its progress
	// gathering: a consumer started under slow start, in its shuffle
	// phase until its last input appears. It loads its node with its
	// shuffle profile and does none of its work: its traced duration is
	// the reduce that follows.
	gathering bool
	// producer: it writes outputs for consumers (a map); dag is its DAG.
	producer bool
	dag      string
	rate     float64 // fraction of full speed now
	since    time.Time
	version  int // bumps when the completion event is rescheduled
}

// start begins an attempt on a node and reschedules the node's attempts.
func (e *engine) startRunning(now time.Time, a core.RunAttempt, d time.Duration) {
	node := e.world.nodeOf(a.Worker)
	job := a.Attempt.DAGID
	if j := e.jobs[job]; j != nil {
		job = j.job.ID
	}
	r := &running{id: a.Attempt.ID, job: job, node: node, profile: a.Attempt.Profile, remaining: d.Seconds(), total: d.Seconds(), rate: 1, since: now,
		gathering: a.Attempt.Incomplete, producer: len(a.Attempt.Outputs) > 0, dag: a.Attempt.DAGID}
	e.running[r.id] = r
	if r.gathering {
		e.gatherOn(r, +1)
	}
	e.rec.attemptStarted(r.job)
	e.byNode[node] = append(e.byNode[node], r)
	if r.producer {
		e.producersChanged(now, r.dag, +1)
	}
	e.reshare(now, node)
}

// producersChanged counts a DAG's running producers and reshares the
// nodes where its consumers shuffle, whose I/O follows that count.
func (e *engine) producersChanged(now time.Time, dag string, delta int) {
	if e.producers == nil {
		e.producers = map[string]int{}
	}
	e.producers[dag] += delta
	for _, n := range sortedNodes(e.gathering[dag]) {
		e.reshare(now, n)
	}
}

// gatherOn counts r, a gathering consumer, in (+1) or out (-1) of
// e.gathering: producersChanged then finds the nodes to reshare without
// a sweep over every running attempt.
func (e *engine) gatherOn(r *running, delta int) {
	if e.gathering == nil {
		e.gathering = map[string]map[string]int{}
	}
	nodes := e.gathering[r.dag]
	if nodes == nil {
		nodes = map[string]int{}
		e.gathering[r.dag] = nodes
	}
	nodes[r.node] += delta
	if nodes[r.node] == 0 {
		delete(nodes, r.node)
	}
	if len(nodes) == 0 {
		delete(e.gathering, r.dag)
	}
}

// load is what r asks of its node's CPU and I/O now.
func (e *engine) load(r *running) (cpu, io float64) {
	if r.profile == nil {
		return 0, 0
	}
	if !r.gathering {
		return r.profile.CPU, r.profile.IO
	}
	copies := min(e.producers[r.dag], parallelCopies)
	return r.profile.CPU, r.profile.IO * float64(copies) / parallelCopies
}

// stopRunning removes an attempt (finished or killed) and reschedules the rest.
func (e *engine) stopRunning(now time.Time, id string) {
	r, ok := e.running[id]
	if !ok {
		return
	}
	delete(e.running, id)
	if r.gathering {
		e.gatherOn(r, -1)
	}
	e.rec.attemptStopped(r.job)
	if r.producer {
		e.producersChanged(now, r.dag, -1)
	}
	rs := e.byNode[r.node]
	for i, x := range rs {
		if x == r {
			e.byNode[r.node] = append(rs[:i], rs[i+1:]...)
			break
		}
	}
	e.reshare(now, r.node)
}

// reshare recomputes the node's rates and completion events.
func (e *engine) reshare(now time.Time, node string) {
	rs := e.byNode[node]
	var l nodeLoad
	for _, r := range rs {
		c, i := e.load(r)
		l.cpu += c
		l.io += i
		if i > 0 {
			l.streams++
		}
		if r.profile != nil {
			l.mem += r.profile.Memory
		}
	}
	for _, r := range rs {
		if r.gathering {
			continue // no work done, no completion to schedule
		}
		r.remaining -= now.Sub(r.since).Seconds() * r.rate
		if r.remaining < 0 {
			r.remaining = 0
		}
		r.since = now
		rate := l.rate(r.profile, e.policy.PaperHardware) * e.slow.speed(e.cfg.Stragglers, node)
		if rate == r.rate && r.version > 0 {
			continue // its completion event still holds
		}
		r.rate = rate
		r.version++
		v, id := r.version, r.id
		e.clk.at(now.Add(time.Duration(r.remaining/rate*float64(time.Second))), func(t time.Time) {
			if x, ok := e.running[id]; ok && x.version == v {
				e.finishAttempt(t, id)
			}
		})
	}
}

// inputsComplete moves a gathering attempt to its reduce phase: from now
// on it works, with its reduce profile, for its traced duration.
func (e *engine) inputsComplete(now time.Time, id string, p *dag.Profile) {
	r, ok := e.running[id]
	if !ok || !r.gathering {
		return
	}
	r.gathering = false
	e.gatherOn(r, -1)
	r.profile = p
	r.since = now
	r.rate = 0 // not a rate it can keep: reshare schedules its completion
	e.reshare(now, r.node)
}

func sortedNodes(set map[string]int) []string {
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
