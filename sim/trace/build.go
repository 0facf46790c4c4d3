package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// stage is a modelled vertex before it becomes a dag.VertexSpec.
type stage struct {
	name      string
	tasks     int
	memoryMB  int64
	vcores    int
	durations []time.Duration // one for every task, or one per task
	parents   []string        // producers, joined by scatter-gather edges
}

// simCommand is what a modelled vertex would run outside the sim: the
// built-in burn task. The sim never runs it; dag validation wants one.
var simCommand = dag.Command{"ebb", "task", "burn"}

// capTasks shrinks stages so their tasks add up to at most max, keeping
// each stage at least one task and keeping every stage's total task time:
// task i of the old stage is folded into new task i mod n, so durations
// lengthen in proportion.
func capTasks(stages []stage, max int) {
	total := 0
	for _, s := range stages {
		total += s.tasks
	}
	if total <= max {
		return
	}
	for i := range stages {
		s := &stages[i]
		n := s.tasks * max / total
		if n < 1 {
			n = 1
		}
		if n >= s.tasks {
			continue
		}
		if len(s.durations) == 1 {
			// p tasks of d become n tasks of d*p/n.
			s.durations[0] = time.Duration(float64(s.durations[0]) * float64(s.tasks) / float64(n)).Round(time.Millisecond)
		} else {
			folded := make([]time.Duration, n)
			for j, d := range s.durations {
				folded[j%n] += d
			}
			s.durations = folded
		}
		s.tasks = n
	}
}

// buildSpec assembles a DAG spec from stages and validates it with the
// same rules `ebb dag submit` applies, so a sim job is a job ebb would
// accept. file and line locate the job in the trace for error messages.
func buildSpec(file string, line int, name string, m ModelOptions, stages []stage, goal time.Duration) (*dag.Spec, error) {
	group := dag.GroupSpec{Name: m.Group, WorkerMemoryMB: m.WorkerMemoryMB}
	for _, s := range stages {
		group.WorkerMemoryMB = max(group.WorkerMemoryMB, s.memoryMB)
	}
	if group.WorkerMemoryMB != m.WorkerMemoryMB {
		// The AM refuses one group name with two worker sizes, so bigger
		// workers get a group of their own.
		group.Name = fmt.Sprintf("%s-%dmb", m.Group, group.WorkerMemoryMB)
	}
	spec := &dag.Spec{Name: name, Group: group}
	if goal > 0 {
		spec.Goal = &dag.Goal{Within: dag.Duration(goal)}
	}
	for _, s := range stages {
		ds := make([]dag.Duration, len(s.durations))
		for i, d := range s.durations {
			ds[i] = dag.Duration(d)
		}
		spec.Vertices = append(spec.Vertices, dag.VertexSpec{Name: s.name, Command: simCommand,
			Parallelism: s.tasks, MemoryMB: s.memoryMB, VCores: s.vcores, SimDurations: ds})
		for _, p := range s.parents {
			spec.Edges = append(spec.Edges, dag.EdgeSpec{From: p, To: s.name, Type: dag.ScatterGather})
		}
	}
	return validate(file, line, "", spec)
}

// validate round-trips spec through JSON and dag.Parse, returning the
// parsed copy. fieldPrefix places the spec inside the trace's document.
func validate(file string, line int, fieldPrefix string, spec *dag.Spec) (*dag.Spec, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, &Error{File: file, Line: line, Field: fieldPrefix + "dag", Msg: "cannot encode the modelled DAG", Err: err}
	}
	parsed, err := dag.Parse(file, data)
	if err != nil {
		return nil, specError(file, line, fieldPrefix, err)
	}
	return parsed, nil
}

// specError moves a dag.SpecError into the trace's coordinates: the
// trace line (plus the line inside an embedded spec) and the field path.
func specError(file string, line int, fieldPrefix string, err error) error {
	var se *dag.SpecError
	if !errors.As(err, &se) {
		return &Error{File: file, Line: line, Field: fieldPrefix + "dag", Err: err}
	}
	l := line
	if se.Line > 0 && line > 0 {
		l = line + se.Line - 1
	}
	field := fieldPrefix + "dag"
	if se.Field != "" {
		field += "." + se.Field
	}
	return &Error{File: file, Line: l, Field: field, Msg: se.Msg, Err: err}
}
