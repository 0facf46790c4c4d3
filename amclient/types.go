package amclient

import (
	"fmt"
	"strings"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// State is a DAG's state as clients see it.
type State string

// The states the AM reports (ebb.proto's DAGStatus.state).
const (
	Submitted State = "SUBMITTED"
	Running   State = "RUNNING"
	Succeeded State = "SUCCEEDED"
	Failed    State = "FAILED"
	Killed    State = "KILLED"
)

// Done says the DAG has ended, one way or another.
func (s State) Done() bool { return s == Succeeded || s == Failed || s == Killed }

// DAG is one DAG's status.
type DAG struct {
	ID, Name    string
	State       State
	Diagnostics string
	// Tasks: succeeded of total; attempts running now and failed so far.
	TotalTasks, SucceededTasks      int
	RunningAttempts, FailedAttempts int
	Output                          string
	// Recovered: rebuilt from the recovery log by a later AM attempt.
	Recovered bool
	// Resource-aware scheduling (ras): the concurrent tasks needed to
	// meet the goal, the DAG's utility and its planned slots.
	SReq, Utility float64
	Slots         int
	// Submitted and Finished (zero while it runs), as the AM saw them.
	Submitted, Finished time.Time
	// Speculative execution: backup attempts started, and the races they
	// won (the original was killed) and lost (the backup was killed).
	BackupsLaunched, BackupsWon, BackupsLost int
	// SlowNodes: where the DAG's attempts straggled (its backups and, while
	// others have room, its later attempts go elsewhere).
	SlowNodes []string
	// Counters: what its succeeded tasks counted, summed by group and
	// name (a Streaming program's reporter:counter: lines), sorted.
	Counters []Counter
}

// Counter is one of a DAG's counters.
type Counter struct {
	Group, Name string
	Value       int64
}

func dagOf(d *ebbpb.DAGStatus) DAG {
	return DAG{ID: d.DagId, Name: d.Name, State: State(d.State), Diagnostics: d.Diagnostics,
		TotalTasks: int(d.TotalTasks), SucceededTasks: int(d.SucceededTasks),
		RunningAttempts: int(d.RunningAttempts), FailedAttempts: int(d.FailedAttempts),
		Output: d.Output, Recovered: d.Recovered, SReq: d.SReq, Utility: d.Utility, Slots: int(d.Slots),
		Submitted: time.UnixMilli(d.SubmitUnixMs), Finished: unixMilliOrZero(d.FinishUnixMs),
		BackupsLaunched: int(d.BackupsLaunched), BackupsWon: int(d.BackupsWon), BackupsLost: int(d.BackupsLost),
		SlowNodes: d.SlowNodes, Counters: countersOf(d.Counters)}
}

func countersOf(ps []*ebbpb.Counter) []Counter {
	var out []Counter
	for _, p := range ps {
		out = append(out, Counter{Group: p.GetGroup(), Name: p.GetName(), Value: p.GetValue()})
	}
	return out
}

// unixMilliOrZero is the time of ms, or the zero time for 0 (not set).
func unixMilliOrZero(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func dagsOf(ds []*ebbpb.DAGStatus) []DAG {
	out := make([]DAG, 0, len(ds))
	for _, d := range ds {
		out = append(out, dagOf(d))
	}
	return out
}

// Page asks for one page of the DAG list: the newest first, only those in
// State (empty: any), at most Limit (0: all), submitted before the DAG
// Before (empty: from the newest). The zero Page is every DAG.
type Page struct {
	State  string
	Limit  int
	Before string
}

// List is one page of DAGs, the newest first.
type List struct {
	DAGs []DAG
	// Total counts the DAGs that match the state filter on every page.
	Total int
	// NextBefore is the Before of the next page; empty on the last.
	NextBefore string
}

// AllDone: there are DAGs and every one has ended.
func (l List) AllDone() bool {
	for _, d := range l.DAGs {
		if !d.State.Done() {
			return false
		}
	}
	return len(l.DAGs) > 0
}

// Submit is a DAG to submit.
type Submit struct {
	// Spec is the DAG as YAML or JSON; SpecName the file it came from,
	// for messages; BaseDir resolves its relative local paths.
	Spec              []byte
	SpecName, BaseDir string
	// Output, when set, overrides the spec's; Overwrite replaces an
	// output that holds results once the DAG has succeeded.
	Output    string
	Overwrite bool
	// Client names the caller in the AM's log (e.g. "ebb dag submit").
	Client string
}

// Cluster is what the AM says of its ContainerGroups.
type Cluster struct {
	Groups []Group
	// Transitions are the autoscaler's state changes, the oldest first.
	Transitions []Transition
}

// Group is one ContainerGroup.
type Group struct {
	Name, Kind, State               string
	UsagePercent                    float64
	Workers, PendingWorkers, Nodes  int
	QueuedAttempts, RunningAttempts int
	// Preemption: containers the RM warned of, the AM gave back before
	// the kill, and the cluster killed by preemption; Evicted: those the
	// cluster evicted.
	PreemptWarned, PreemptGivenBack, PreemptLost, Evicted int
	// SlowStartKilled: gathering consumers the AM killed to break a
	// slow-start stall.
	SlowStartKilled int
	// TargetP95: the latency target its autoscaler holds (0: not sized
	// from the work in sight); MeasuredP95 over the latest MeasuredDAGs
	// DAGs (0: none measured yet).
	TargetP95, MeasuredP95 float64
	MeasuredDAGs           int
}

// Transition is one change of a group's autoscaler state.
type Transition struct {
	At                      time.Time
	Group, From, To, Reason string
}

func clusterOf(r *ebbpb.ClusterStatusResponse) Cluster {
	var c Cluster
	for _, g := range r.Groups {
		c.Groups = append(c.Groups, Group{Name: g.Name, Kind: g.Kind, State: g.State, UsagePercent: g.UsagePercent,
			Workers: int(g.Workers), PendingWorkers: int(g.PendingWorkers), Nodes: int(g.Nodes),
			QueuedAttempts: int(g.QueuedAttempts), RunningAttempts: int(g.RunningAttempts),
			PreemptWarned: int(g.PreemptWarned), PreemptGivenBack: int(g.PreemptGivenBack), PreemptLost: int(g.PreemptLost), Evicted: int(g.Evicted),
			SlowStartKilled: int(g.SlowstartKilled), TargetP95: g.TargetP95Slowdown, MeasuredP95: g.MeasuredP95Slowdown,
			MeasuredDAGs: int(g.MeasuredDags)})
	}
	for _, t := range r.Transitions {
		c.Transitions = append(c.Transitions, Transition{At: time.UnixMilli(t.UnixMs), Group: t.Group, From: t.From, To: t.To, Reason: t.Reason})
	}
	return c
}

// Autoscale retunes the autoscaler of one group (Group empty: every
// group), as the mr3.auto.scale.* keys would.
type Autoscale struct {
	Group                           string
	OutPercent, InPercent, MinHosts int
}

// TakeoverLine is what a following client says when a new AM attempt
// took over: which attempt, and where its unfinished DAGs resumed.
func TakeoverLine(attempt int32, dags []DAG) string {
	var parts []string
	for _, d := range dags {
		if d.State == Running || d.State == Submitted {
			parts = append(parts, fmt.Sprintf("DAG %s resumed at %d/%d tasks", d.ID, d.SucceededTasks, d.TotalTasks))
		}
	}
	if len(parts) == 0 {
		parts = []string{"no DAG to resume"}
	}
	return fmt.Sprintf("AM attempt %d took over; %s", attempt, strings.Join(parts, "; "))
}
