package sim

import (
	"sort"
	"time"

	"github.com/ebb-am/ebb/sim/report"
)

// Recorder keeps what a run did, in the report's terms.
type Recorder struct {
	run       report.Run
	jobsTotal int
	jobsDone  int
	// running and peak: attempts in flight per job id now, and the most
	// at once (how much of the cluster a scheduler gave the job).
	running, peak map[string]int
}

func (r *Recorder) attemptStarted(job string) {
	if r.running == nil {
		r.running, r.peak = map[string]int{}, map[string]int{}
	}
	r.running[job]++
	r.peak[job] = max(r.peak[job], r.running[job])
}

func (r *Recorder) attemptStopped(job string) { r.running[job]-- }

// PeakRunning is the most attempts the job with this id ran at once.
func (r *Recorder) PeakRunning(job string) int { return r.peak[job] }

// newRecorder starts a run's record. The lower bound's Σ task MB × s comes
// from the trace (every task once, for its traced time), not from the
// attempts the run happened to start.
func newRecorder(p Policy, cfg Config, jobs []Job) *Recorder {
	r := &Recorder{run: report.Run{Policy: p.Name, NodeMemoryMB: cfg.nodeMB()}}
	if elastic(&p) {
		r.run.FirstNode = cfg.Cloud.ProvisionDelay // it starts with no node
	}
	for _, j := range jobs {
		r.run.TaskMBSeconds += taskMBSeconds(p, cfg, j)
	}
	return r
}

// taskMBSeconds is Σ over a job's tasks of reserved memory (vcores.go) ×
// traced duration.
func taskMBSeconds(p Policy, cfg Config, j Job) float64 {
	var sum float64
	for _, v := range j.Spec.Vertices {
		for t := 0; t < v.Parallelism; t++ {
			var d time.Duration
			if n := len(v.SimDurations); n > 0 {
				d = v.SimDurations[min(t, n-1)].D()
			}
			if d <= 0 {
				d = time.Second // the engine's floor for an untimed task
			}
			sum += float64(p.reservedMB(cfg, v)) * d.Seconds()
		}
	}
	return sum
}

// Run is the finished record.
func (r *Recorder) Run() report.Run { return r.run }

func (r *Recorder) sample(at time.Duration, e *engine) {
	nodes := e.world.liveNodes()
	var used int64
	for _, n := range e.core.Nodes() {
		used += n.UsedMB
	}
	r.run.Samples = append(r.run.Samples, report.Sample{At: at, Nodes: nodes, UsedMB: used, CapacityMB: int64(nodes) * e.cfg.nodeMB()})
}

func (r *Recorder) jobEnded(j *jobRun, start time.Time) {
	r.jobsDone++
	var goal time.Duration
	if d, ok := j.job.Spec.Goal.Deadline(j.submit); ok {
		goal = d.Sub(j.submit)
	}
	r.run.Jobs = append(r.run.Jobs, report.JobResult{ID: j.job.ID, Submit: j.submit.Sub(start),
		Finish: j.finish.Sub(start), Goal: goal, Completed: j.state.String() == "SUCCEEDED"})
}

func (r *Recorder) finish(end time.Time, e *engine) {
	r.run.NodeSeconds = e.cloud.NodeSeconds(end)
	r.run.PaidSeconds = e.cloud.PaidSeconds(end)
	r.run.Cost = e.cloud.Cost(end)
	sort.Slice(r.run.Jobs, func(i, j int) bool { return r.run.Jobs[i].ID < r.run.Jobs[j].ID })
}

// jobResult is a job that completed at finish (offsets from the start).
func jobResult(j Job, finish time.Duration) report.JobResult {
	submit := time.Unix(0, 0).UTC().Add(j.Submit)
	var goal time.Duration
	if d, ok := j.Spec.Goal.Deadline(submit); ok {
		goal = d.Sub(submit)
	}
	return report.JobResult{ID: j.ID, Submit: j.Submit, Finish: finish, Goal: goal, Completed: true}
}
