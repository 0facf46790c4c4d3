package sim

import (
	"fmt"
	"time"

	"ebb/am"
	"ebb/dag"
	"ebb/packing"
	"ebb/sim/trace"
)

// Job is one DAG of a trace and when it arrives.
type Job = trace.Job

// Config is the virtual cloud and the engine's clocks.
type Config struct {
	NodeMB           int64
	NodeVCores       int
	PricePerHour     float64
	ProvisionDelay   time.Duration // how long a new node takes (cloud nodes: ~180 s)
	ReclaimDelay     time.Duration // an empty node is given back after this
	BillingPeriod    time.Duration // 0: per second; e.g. 1 h: a started hour is paid in full
	MaxNodes         int
	WorkerStartDelay time.Duration // container launch on a ready node
	Tick             time.Duration // how often the core sees time pass
	SampleEvery      time.Duration // nodes-in-use and utilisation samples for the report
	// WorkerMB, when set, replaces every job's group with one shared group
	// of this worker size; 0 keeps the groups the trace reader chose.
	WorkerMB int64
}

// DefaultConfig: 64 GB / 16 vcore nodes at a typical on-demand price,
// 180 s provisioning as cloud nodes take, per-second billing.
func DefaultConfig() Config {
	return Config{NodeMB: 65536, NodeVCores: 16, PricePerHour: 0.77, ProvisionDelay: 180 * time.Second,
		ReclaimDelay: 30 * time.Second, WorkerStartDelay: 2 * time.Second, Tick: 5 * time.Second,
		SampleEvery: time.Minute}
}

// engine is one policy's run over one trace.
type engine struct {
	cfg    Config
	policy Policy
	clk    clock
	core   *am.Core
	world  *world
	cloud  *cloudAdapter
	start  time.Time
	jobs   map[string]*jobRun // by DAG id
	rec    *Recorder
	// running attempts' completion events, so a kill can cancel one
	live map[string]bool
	err  error
}

type jobRun struct {
	job    Job
	dagID  string
	submit time.Time
	finish time.Time
	state  am.DAGState
}

// Run replays jobs under one policy and records what happened.
func Run(jobs []Job, cfg Config, p Policy) (*Recorder, error) {
	start := time.Unix(0, 0).UTC()
	alloc, err := packing.New(p.Packing, packing.Options{HighThresholdPercent: p.HighThreshold, MinNodes: p.MinNodes})
	if err != nil {
		return nil, err
	}
	opts := p.Core
	opts.Allocator = alloc
	opts.IDPrefix = ""
	// Virtual workers never miss a heartbeat and tasks never hang.
	opts.WorkerTimeout = 1000 * time.Hour
	opts.TaskTimeout = 1000 * time.Hour
	opts.MaxConcurrentDAGs = 1 << 20
	core, err := am.NewCore(opts)
	if err != nil {
		return nil, err
	}
	if p.Static > 0 {
		cfg.MaxNodes = p.Static // a fixed cluster: never more, never less
	}
	cl, err := newCloudAdapter(cfg, p, start)
	if err != nil {
		return nil, err
	}
	e := &engine{cfg: cfg, policy: p, core: core, cloud: cl, start: start, jobs: map[string]*jobRun{},
		live: map[string]bool{}, rec: newRecorder(p.Name, cfg)}
	e.clk.now = start
	e.world = newWorld(e, alloc)
	for i := 0; i < p.Static; i++ {
		e.world.provision(start, true)
	}
	for _, j := range jobs {
		j := j
		e.clk.at(start.Add(j.Submit), func(now time.Time) { e.submit(now, j) })
	}
	remaining := len(jobs)
	e.rec.jobsTotal = remaining
	var lastSubmit time.Duration
	for _, j := range jobs {
		lastSubmit = max(lastSubmit, j.Submit)
	}
	// A run that makes no progress for this long after the last arrival is
	// stuck: say which jobs, rather than tick forever.
	const stall = 48 * time.Hour
	lastDone, lastProgress := 0, start
	var tick func(now time.Time)
	tick = func(now time.Time) {
		e.core.Tick(now)
		e.world.Tick(now)
		e.dispatch(now)
		if e.rec.jobsDone != lastDone {
			lastDone, lastProgress = e.rec.jobsDone, now
		}
		if now.Sub(start) > lastSubmit && now.Sub(lastProgress) > stall && e.err == nil {
			e.err = e.stuck(now)
		}
		if e.rec.jobsDone < remaining && e.err == nil {
			e.clk.after(cfg.Tick, tick)
		}
	}
	e.clk.after(cfg.Tick, tick)
	var sample func(now time.Time)
	sample = func(now time.Time) {
		e.rec.sample(now.Sub(start), e)
		if e.rec.jobsDone < remaining && e.err == nil {
			e.clk.after(cfg.SampleEvery, sample)
		}
	}
	e.clk.at(start, sample)
	for e.err == nil && e.clk.next() {
	}
	if e.err != nil {
		return nil, e.err
	}
	end := e.clk.now
	e.rec.sample(end.Sub(start), e)
	e.rec.finish(end.Sub(start), e)
	return e.rec, nil
}

func (e *engine) submit(now time.Time, j Job) {
	spec := j.Spec
	if e.cfg.WorkerMB > 0 {
		cp := *spec
		cp.Group = dag.GroupSpec{Name: "sim", WorkerMemoryMB: e.cfg.WorkerMB, WorkerVCores: 1}
		spec = &cp
	}
	id, err := e.core.SubmitDAG(now, am.Submission{Spec: spec})
	if err != nil {
		e.err = fmt.Errorf("job %s: %w", j.ID, err)
		return
	}
	e.jobs[id] = &jobRun{job: j, dagID: id, submit: now}
	e.dispatch(now)
}

// dispatch carries out the core's actions in the virtual cloud.
func (e *engine) dispatch(now time.Time) {
	for round := 0; round < 100; round++ {
		acts := e.core.Actions()
		if len(acts) == 0 {
			return
		}
		for _, a := range acts {
			switch a := a.(type) {
			case am.WantWorkers:
				e.world.WantWorkers(now, a.Group, a.Total, a.Prefer, a.Avoid)
			case am.RunAttempt:
				e.run(now, a)
			case am.KillAttempt:
				delete(e.live, a.AttemptID)
			case am.StopWorker:
				e.world.WorkerStopped(now, a.Worker)
			case am.DAGEnded:
				if j := e.jobs[a.DAG.ID]; j != nil {
					j.finish = now
					j.state = a.DAG.State
					e.rec.jobEnded(j)
				}
			}
		}
	}
}

// stuck describes the jobs that did not finish.
func (e *engine) stuck(now time.Time) error {
	var names []string
	for _, st := range e.core.DAGs() {
		if !st.State.Done() {
			names = append(names, fmt.Sprintf("%s (%s: %d/%d tasks, %d running)", st.Name, st.State, st.Succeeded, st.TotalTasks, st.Running))
			if len(names) == 5 {
				break
			}
		}
	}
	gs := e.core.Groups()
	return fmt.Errorf("policy %s: no job finished for %s of virtual time (at %s); unfinished: %v; groups: %+v",
		e.policy.Name, now.Sub(e.start)-now.Sub(now), now.Sub(e.start), names, gs)
}

// run schedules an attempt's end after its traced duration.
func (e *engine) run(now time.Time, a am.RunAttempt) {
	id := a.Attempt.ID
	e.live[id] = true
	d := a.Attempt.SimDuration
	if d <= 0 {
		d = time.Second
	}
	e.rec.taskMBSeconds += float64(a.Attempt.MemoryMB) * d.Seconds()
	e.clk.after(d, func(t time.Time) {
		if !e.live[id] {
			return
		}
		delete(e.live, id)
		e.core.AttemptUpdate(t, am.AttemptUpdate{AttemptID: id, Result: am.AttemptSucceeded})
		e.dispatch(t)
	})
}
