package trace

import (
	"strconv"
	"strings"
	"time"
)

// ebbCSVHeader is the header ebb's CSV format must start with.
var ebbCSVHeader = []string{"job", "submit_secs", "vertex", "tasks", "memory_mb", "duration_secs", "depends_on"}

// readEbbCSV reads ebb's CSV for hand-made jobs: one row per vertex, rows
// of a job sharing its submit time; depends_on names earlier vertices of
// the same job (separated by spaces or ';'), each joined by a
// scatter-gather edge. Every task of a vertex lasts duration_secs. Jobs
// run in the model's ContainerGroup and are never capped.
func readEbbCSV(path string, m ModelOptions) ([]Job, error) {
	t, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	if len(t.rows) == 0 || !sameHeader(t.rows[0]) {
		got := ""
		line := 0
		if len(t.rows) > 0 {
			got, line = strings.Join(t.rows[0], ","), t.lines[0]
		}
		return nil, fieldError(path, line, "header", got, "want %s", strings.Join(ebbCSVHeader, ","))
	}
	type csvJob struct {
		line   int
		submit float64
		stages []stage
		index  map[string]int
	}
	byID := map[string]*csvJob{}
	var order []string
	for i := 1; i < len(t.rows); i++ {
		row, line := t.rows[i], t.lines[i]
		if len(row) != len(ebbCSVHeader) {
			return nil, fieldError(path, line, "", strings.Join(row, ","), "%d columns: want %d (%s)", len(row), len(ebbCSVHeader), strings.Join(ebbCSVHeader, ","))
		}
		id, vertex := strings.TrimSpace(row[0]), strings.TrimSpace(row[2])
		submit, err := t.num(i, 1, "submit_secs")
		if err != nil {
			return nil, err
		}
		if submit < 0 {
			return nil, fieldError(path, line, "submit_secs", row[1], "want seconds at or after the trace start")
		}
		tasks, err := strconv.Atoi(strings.TrimSpace(row[3]))
		if err != nil || tasks < 1 {
			return nil, fieldError(path, line, "tasks", row[3], "want a whole number of tasks, at least 1")
		}
		mem, err := strconv.ParseInt(strings.TrimSpace(row[4]), 10, 64)
		if err != nil || mem < 1 {
			return nil, fieldError(path, line, "memory_mb", row[4], "want a whole positive number of MB")
		}
		dur, err := t.num(i, 5, "duration_secs")
		if err != nil {
			return nil, err
		}
		if dur < 0 {
			return nil, fieldError(path, line, "duration_secs", row[5], "want a non-negative number of seconds")
		}
		j, ok := byID[id]
		if !ok {
			if id == "" {
				return nil, fieldError(path, line, "job", "", "want a job id")
			}
			j = &csvJob{line: line, submit: submit, index: map[string]int{}}
			byID[id] = j
			order = append(order, id)
		}
		if submit != j.submit {
			return nil, fieldError(path, line, "submit_secs", row[1], "job %s was submitted at %g s on line %d: want the same time on every row of a job", id, j.submit, j.line)
		}
		if _, dup := j.index[vertex]; dup {
			return nil, fieldError(path, line, "vertex", vertex, "job %s already has this vertex", id)
		}
		var parents []string
		for _, p := range strings.FieldsFunc(row[6], func(r rune) bool { return r == ' ' || r == ';' }) {
			if _, ok := j.index[p]; !ok {
				return nil, fieldError(path, line, "depends_on", p, "not an earlier vertex of job %s: want the name of a vertex on a row above", id)
			}
			parents = append(parents, p)
		}
		j.index[vertex] = len(j.stages)
		j.stages = append(j.stages, stage{name: vertex, tasks: tasks, memoryMB: mem, vcores: 1,
			durations: []time.Duration{secs(dur)}, parents: parents})
	}
	jobs := make([]Job, 0, len(order))
	for _, id := range order {
		j := byID[id]
		spec, err := buildSpec(path, j.line, id, m, j.stages, 0)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, Job{ID: id, Submit: secs(j.submit), Spec: spec})
	}
	return jobs, nil
}

func sameHeader(row []string) bool {
	if len(row) != len(ebbCSVHeader) {
		return false
	}
	for i, h := range row {
		if strings.TrimSpace(strings.ToLower(h)) != ebbCSVHeader[i] {
			return false
		}
	}
	return true
}
