package sim

import (
	"sort"
	"time"
)

// Recorder keeps what a run did, for the report.
type Recorder struct {
	Policy        string
	NodeMB        int64
	Samples       []Sample
	Jobs          []JobResult
	NodeSeconds   float64
	Cost          float64
	TaskMBSeconds float64
	Makespan      time.Duration

	jobsTotal     int
	jobsDone      int
	taskMBSeconds float64
}

// Sample is the cluster at one moment.
type Sample struct {
	At         time.Duration
	Nodes      int
	UsedMB     int64 // memory of running attempts
	CapacityMB int64 // memory of the nodes in use
}

// JobResult is how one job went.
type JobResult struct {
	ID        string
	Submit    time.Duration
	Finish    time.Duration
	Goal      time.Duration // 0: none
	Completed bool
}

func newRecorder(policy string, cfg Config) *Recorder {
	return &Recorder{Policy: policy, NodeMB: cfg.NodeMB}
}

func (r *Recorder) sample(at time.Duration, e *engine) {
	nodes := e.world.liveNodes()
	var used int64
	for _, n := range e.core.Nodes() {
		used += n.UsedMB
	}
	r.Samples = append(r.Samples, Sample{At: at, Nodes: nodes, UsedMB: used, CapacityMB: int64(nodes) * e.cfg.NodeMB})
}

func (r *Recorder) jobEnded(j *jobRun) {
	r.jobsDone++
	var goal time.Duration
	if j.job.Spec.Goal != nil {
		if d, ok := j.job.Spec.Goal.Deadline(j.submit); ok {
			goal = d.Sub(j.submit)
		}
	}
	r.Jobs = append(r.Jobs, JobResult{ID: j.job.ID, Submit: j.submit.Sub(time.Unix(0, 0).UTC()),
		Finish: j.finish.Sub(time.Unix(0, 0).UTC()), Goal: goal, Completed: j.state.String() == "SUCCEEDED"})
}

func (r *Recorder) finish(end time.Duration, e *engine) {
	r.NodeSeconds, r.Cost = e.cloud.totals(e.start.Add(end))
	r.TaskMBSeconds = r.taskMBSeconds
	r.Makespan = end
	sort.Slice(r.Jobs, func(i, j int) bool { return r.Jobs[i].ID < r.Jobs[j].ID })
}
