package sim

import (
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/sim/cloud"
	"github.com/ebb-am/ebb/sim/trace"
)

// Job is one DAG of a trace and when it arrives.
type Job = trace.Job

// Config is the virtual cloud and the engine's clocks.
type Config struct {
	// Cloud: node types (the first is used), provisioning and reclaim
	// delays, billing granularity, the node cap.
	Cloud            cloud.Config
	WorkerStartDelay time.Duration // container launch on a ready node
	Tick             time.Duration // how often the core sees time pass
	SampleEvery      time.Duration // nodes-in-use and utilisation samples for the report
	// WorkerMB, when set, replaces every job's group with one shared group
	// of this worker size; 0 keeps the groups the trace reader chose.
	WorkerMB int64
	// Stragglers makes some nodes slow (stragglers.go).
	Stragglers Stragglers
}

// DefaultConfig: the cloud's defaults (64 GB / 16 vcore nodes, 180 s to
// provision as cloud nodes take, per-second billing), 2 s container
// start, a 5 s core tick, a sample a minute.
func DefaultConfig() Config {
	return Config{Cloud: cloud.DefaultConfig(), WorkerStartDelay: 2 * time.Second, Tick: 5 * time.Second, SampleEvery: time.Minute}
}

func (c Config) nodeMB() int64 { return c.Cloud.Types[0].MemoryMB }

func (c Config) nodeVCores() int { return c.Cloud.Types[0].VCores }

// engine is one policy's run over one trace.
type engine struct {
	cfg    Config
	policy Policy
	clk    clock
	core   *core.Core
	world  *world
	cloud  *cloud.Cloud
	// lastProvision: the latest node request (k8s-ca's delay after a scale-up).
	lastProvision time.Time
	lastFinish    time.Time
	start         time.Time
	jobs          map[string]*jobRun // by DAG id
	rec           *Recorder
	running       map[string]*running       // attempts in flight
	byNode        map[string][]*running     // the same, by node, for contention
	producers     map[string]int            // running producer attempts by DAG id (contention.go)
	gathering     map[string]map[string]int // gathering consumers by DAG id, then node (contention.go)
	slow          slowNodes                 // nodes made slow (stragglers.go)
	err           error
}

type jobRun struct {
	job    Job
	dagID  string
	submit time.Time
	finish time.Time
	state  core.DAGState
}

// Run replays jobs under one policy and records what happened.
func Run(jobs []Job, cfg Config, p Policy) (*Recorder, error) {
	if p.Oracle {
		return runOracle(jobs, cfg, p)
	}
	start := time.Unix(0, 0).UTC()
	e, err := newEngine(cfg, p, start, jobs)
	if err != nil {
		return nil, err
	}
	e.plan(jobs)
	for e.err == nil && e.clk.next() {
	}
	if e.err != nil {
		return nil, e.err
	}
	// The run ends when its last job does: every policy is billed up to
	// the same point, whatever its nodes do afterwards.
	end := e.clk.now
	if !e.lastFinish.IsZero() {
		end = e.lastFinish
	}
	e.rec.sample(end.Sub(start), e)
	e.rec.finish(end, e)
	return e.rec, nil
}

// newEngine builds the core under policy p, the virtual cloud and the
// world between them, with a static policy's nodes ready at start.
func newEngine(cfg Config, p Policy, start time.Time, jobs []Job) (*engine, error) {
	if err := cfg.Stragglers.Validate(); err != nil {
		return nil, err
	}
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
	// Nothing reads a replay's finished DAGs back from the core (the
	// recorder takes each from its DAGEnded) nor an attempt's input list:
	// keeping the newest 1,000 DAGs whole and 10,000 summaries, as an AM
	// does for its UI, and listing every producer for each consumer were
	// most of a long replay's memory and allocation.
	opts.RetainDAGs, opts.RetainSummaries = 1, 1
	opts.NoInputLists = true
	var e *engine
	if billingAware(p, cfg) && opts.Scaling == mr3Scaling {
		opts.Autoscale.BillingPeriod = cfg.Cloud.BillingPeriod
	}
	if p.BootFromCloud && opts.Scaling == mr3Scaling {
		opts.Autoscale.BootTime = cfg.Cloud.ProvisionDelay
	}
	core, err := core.NewCore(opts)
	if err != nil {
		return nil, err
	}
	if p.Static > 0 {
		cfg.Cloud.MaxNodes = p.Static // a fixed cluster: never more, never less
	}
	cl, err := cloud.New(cfg.Cloud)
	if err != nil {
		return nil, err
	}
	e = &engine{cfg: cfg, policy: p, core: core, cloud: cl, start: start, jobs: map[string]*jobRun{},
		running: map[string]*running{}, byNode: map[string][]*running{}, rec: newRecorder(p, cfg, jobs), lastProvision: start.Add(-24 * time.Hour)}
	e.clk.now = start
	if e.world, err = newWorld(e, alloc); err != nil {
		return nil, err
	}
	for i := 0; i < p.Static; i++ {
		e.world.addNode(start)
	}
	return e, nil
}

// plan puts the run's events on the virtual clock: each job's submission,
// the first tick and the first sample, each tick and sample scheduling
// the next until every job is done or the run failed.
func (e *engine) plan(jobs []Job) {
	start, cfg := e.start, e.cfg
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
		e.bill(now)
		e.reportProgress(now)
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
}

func (e *engine) submit(now time.Time, j Job) {
	spec := e.reshape(j.Spec)
	id, err := e.core.SubmitDAG(now, core.Submission{Spec: spec})
	if err != nil {
		e.err = fmt.Errorf("job %s: %w", j.ID, err)
		return
	}
	e.jobs[id] = &jobRun{job: j, dagID: id, submit: now}
	e.dispatch(now)
}

// reshape applies the run's worker and slot sizes and the node's vcores
// to a job's spec (vcores.go).
func (e *engine) reshape(spec *dag.Spec) *dag.Spec {
	workerMB := e.cfg.WorkerMB
	if e.policy.NodeWorkers {
		workerMB = e.cfg.nodeMB()
	}
	cp := *spec
	cp.Vertices = append([]dag.VertexSpec(nil), spec.Vertices...)
	var biggest int64
	for i := range cp.Vertices {
		v := &cp.Vertices[i]
		v.MemoryMB = e.policy.reservedMB(e.cfg, *v)
		if k := e.policy.SlotsPerNode; k > 0 {
			v.MemoryMB = e.cfg.nodeMB() / int64(k+hadoopReduceSlots)
		}
		biggest = max(biggest, v.MemoryMB)
	}
	if workerMB > 0 {
		cp.Group = dag.GroupSpec{Name: "sim", WorkerMemoryMB: workerMB, WorkerVCores: 1}
	}
	if biggest > cp.Group.WorkerMemoryMB {
		// A reservation grown by its vcores no longer fits the trace's
		// worker: such tasks get workers of their own size, in a group of
		// their own (one name, one size, as the AM requires).
		cp.Group.Name = fmt.Sprintf("%s-%dmb", cp.Group.Name, biggest)
		cp.Group.WorkerMemoryMB = biggest
	}
	return &cp
}

// dispatch carries out the core's actions in the virtual cloud
// (executor.go).
func (e *engine) dispatch(now time.Time) { e.core.Drain(now, executor{e}) }

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

// run starts an attempt: it ends after its traced duration, stretched by
// contention on its node (contention.go).
func (e *engine) run(now time.Time, a core.RunAttempt) {
	d := a.Attempt.SimDuration
	if d <= 0 {
		d = time.Second
	}
	e.startRunning(now, a, d)
}

func (e *engine) finishAttempt(now time.Time, id string) {
	e.stopRunning(now, id)
	e.core.AttemptUpdate(now, core.AttemptUpdate{AttemptID: id, Result: core.AttemptSucceeded})
	e.dispatch(now)
}
