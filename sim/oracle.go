package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/sim/cloud"
	"github.com/ebb-am/ebb/sim/report"
)

// The oracle is the clairvoyant reference the report measures cost
// against (issue 13). It is not a configuration of the core: it knows
// every arrival in advance, so
//
//   - every task starts the moment its inputs are ready (a job's first
//     vertices at its arrival; a consumer when the producers it reads
//     from have ended: for one-to-one edges its own producer task, for the
//     others every task of the producer vertex), so every job runs along
//     its critical path;
//   - it packs perfectly: at every moment it has ceil(Σ reserved MB of
//     the running tasks / node MB) nodes in use (vcores.go: reservations
//     count vcores);
//   - each node is up exactly when its work needs it: it is requested one
//     provisioning delay earlier (and pays for that boot time, as every
//     policy does);
//   - it gives a node back as soon as it is empty, or under a billing
//     period at the end of the paid period if it is still empty then;
//     knowing the future, it keeps an empty node instead when its next
//     work starts before a new node requested for that work would have
//     to be (per second: a gap no longer than the provisioning delay;
//     per period: a new node would be requested before the paid period
//     ends).
//
// Nodes are stacked: node k serves the k-th node's worth of demand, busy
// whenever the demand needs k nodes or more. Its billing and figures come
// from the same virtual cloud as every other policy's.
func runOracle(jobs []Job, cfg Config, p Policy) (*Recorder, error) {
	start := time.Unix(0, 0).UTC()
	rec := newRecorder(p, cfg, jobs)
	var evs []demandEvent
	var lastFinish time.Duration
	for _, j := range jobs {
		finish, err := oracleJob(j, cfg, &evs)
		if err != nil {
			return nil, err
		}
		lastFinish = max(lastFinish, finish)
		rec.run.Jobs = append(rec.run.Jobs, jobResult(j, finish))
	}
	// Ends before starts at one instant: a node freed at t serves work
	// starting at t.
	slices.SortFunc(evs, func(a, b demandEvent) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.mb, b.mb)
	})
	busy := nodeLevels(evs, cfg.nodeMB())
	ccfg := cfg.Cloud
	ccfg.MaxNodes = 0 // the oracle is not held to a cap
	cl, err := cloud.New(ccfg)
	if err != nil {
		return nil, err
	}
	var lives [][2]time.Duration
	for _, intervals := range busy {
		lives = append(lives, nodeLives(intervals, ccfg)...)
	}
	for _, l := range lives {
		id, _, err := cl.Provision(start.Add(l[0]), "")
		if err != nil {
			return nil, fmt.Errorf("oracle: %w", err)
		}
		if err := cl.Release(start.Add(l[1]), id); err != nil {
			return nil, fmt.Errorf("oracle: %w", err)
		}
	}
	rec.run.Samples = oracleSamples(evs, lives, cfg, lastFinish)
	end := start.Add(lastFinish)
	rec.run.NodeSeconds = cl.NodeSeconds(end)
	rec.run.PaidSeconds = cl.PaidSeconds(end)
	rec.run.Cost = cl.Cost(end)
	slices.SortFunc(rec.run.Jobs, func(a, b report.JobResult) int { return cmp.Compare(a.ID, b.ID) })
	return rec, nil
}

// demandEvent: at at, mb of reservations start (> 0) or end (< 0).
type demandEvent struct {
	at time.Duration
	mb int64
}

// oracleJob schedules one job's tasks along its critical path, appends
// their reservations to evs and returns when the job ends.
func oracleJob(j Job, cfg Config, evs *[]demandEvent) (time.Duration, error) {
	s := j.Spec
	index := map[string]int{}
	for i, v := range s.Vertices {
		index[v.Name] = i
	}
	in := make([][]dag.EdgeSpec, len(s.Vertices))
	for _, e := range s.Edges {
		in[index[e.To]] = append(in[index[e.To]], e)
	}
	ends := make([][]time.Duration, len(s.Vertices)) // per vertex, per task
	done := make([]bool, len(s.Vertices))
	finish := j.Submit
	for left := len(s.Vertices); left > 0; {
		progress := false
		for vi, v := range s.Vertices {
			if done[vi] || !inputsDone(in[vi], index, done) {
				continue
			}
			mb := cfg.reservedMB(v)
			ends[vi] = make([]time.Duration, v.Parallelism)
			for t := range v.Parallelism {
				ready := j.Submit
				for _, e := range in[vi] {
					ready = max(ready, producersEnd(ends[index[e.From]], e.Type, t))
				}
				end := ready + taskDuration(v, t)
				ends[vi][t] = end
				finish = max(finish, end)
				*evs = append(*evs, demandEvent{ready, mb}, demandEvent{end, -mb})
			}
			done[vi], progress = true, true
			left--
		}
		if !progress {
			return 0, fmt.Errorf("oracle: job %s: its edges form a cycle", j.ID)
		}
	}
	return finish, nil
}

func inputsDone(in []dag.EdgeSpec, index map[string]int, done []bool) bool {
	for _, e := range in {
		if !done[index[e.From]] {
			return false
		}
	}
	return true
}

// producersEnd is when consumer task t's inputs over one edge are ready.
func producersEnd(ends []time.Duration, typ dag.EdgeType, t int) time.Duration {
	if typ == dag.OneToOne && t < len(ends) {
		return ends[t]
	}
	var m time.Duration
	for _, e := range ends {
		m = max(m, e)
	}
	return m
}

// taskDuration is a task's traced duration, with the engine's 1 s floor.
func taskDuration(v dag.VertexSpec, t int) time.Duration {
	var d time.Duration
	if n := len(v.SimDurations); n > 0 {
		d = v.SimDurations[min(t, n-1)].D()
	}
	if d <= 0 {
		d = time.Second
	}
	return d
}

// nodeLevels turns sorted demand into each stacked node's busy intervals:
// node k (from 0) is busy while the demand needs more than k nodes.
func nodeLevels(evs []demandEvent, nodeMB int64) [][][2]time.Duration {
	var levels [][][2]time.Duration
	var open []time.Duration
	var used int64
	for i, ev := range evs {
		used += ev.mb
		if i+1 < len(evs) && evs[i+1].at == ev.at {
			continue // settle every change at one instant first
		}
		n := int((used + nodeMB - 1) / nodeMB)
		for len(open) < n {
			open = append(open, ev.at)
		}
		for len(open) > n {
			k := len(open) - 1
			for len(levels) <= k {
				levels = append(levels, nil)
			}
			if ev.at > open[k] {
				levels[k] = append(levels[k], [2]time.Duration{open[k], ev.at})
			}
			open = open[:k]
		}
	}
	return levels
}

// nodeLives merges one stacked node's busy intervals into node lives
// (request, release) under the oracle's rules (runOracle).
func nodeLives(busy [][2]time.Duration, c cloud.Config) [][2]time.Duration {
	var lives [][2]time.Duration
	for i := 0; i < len(busy); {
		req, end := busy[i][0]-c.ProvisionDelay, busy[i][1]
		i++
		for {
			release := end
			if c.BillingPeriod > 0 {
				release = req + c.Billed(end-req)
			}
			if i < len(busy) && busy[i][0]-c.ProvisionDelay <= release {
				end = busy[i][1]
				i++
				continue
			}
			lives = append(lives, [2]time.Duration{req, release})
			break
		}
	}
	return lives
}

// oracleSamples are the nodes alive and the memory reserved, every
// SampleEvery from the start to the end.
func oracleSamples(evs []demandEvent, lives [][2]time.Duration, cfg Config, end time.Duration) []report.Sample {
	var out []report.Sample
	var used int64
	k := 0
	for at := time.Duration(0); ; at += cfg.SampleEvery {
		at = min(at, end)
		for k < len(evs) && evs[k].at <= at {
			used += evs[k].mb
			k++
		}
		nodes := 0
		for _, l := range lives {
			if l[0] <= at && at < l[1] {
				nodes++
			}
		}
		out = append(out, report.Sample{At: at, Nodes: nodes, UsedMB: used, CapacityMB: int64(nodes) * cfg.nodeMB()})
		if at >= end || cfg.SampleEvery <= 0 {
			return out
		}
	}
}
