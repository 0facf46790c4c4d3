package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// aliTask is one row of an Alibaba 2017 batch table: a task of a job,
// run as instances identical instances.
type aliTask struct {
	line      int
	job, task string
	submit    float64 // seconds
	duration  float64 // seconds one instance runs
	cores     float64
	memNorm   float64 // fraction of a machine's memory
	instances int
}

// csvTable reads a whole CSV file, remembering each record's line.
type csvTable struct {
	path  string
	rows  [][]string
	lines []int
}

func readCSV(path string) (*csvTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	t := &csvTable{path: path}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &Error{File: path, Line: pe.Line, Field: fmt.Sprintf("column %d", pe.Column), Msg: pe.Err.Error(), Err: err}
			}
			return nil, fmt.Errorf("trace: %s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
}

// column finds a named column in the header row.
func (t *csvTable) column(header []string, name string) (int, error) {
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(h), name) {
			return i, nil
		}
	}
	return 0, fieldError(t.path, t.lines[0], "header", strings.Join(header, ","), "no column %q", name)
}

// num reads a non-negative number from row i, column c named name.
func (t *csvTable) num(i, c int, name string) (float64, error) {
	row := t.rows[i]
	if c >= len(row) {
		return 0, fieldError(t.path, t.lines[i], name, "", "missing: the row has %d columns", len(row))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(row[c]), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fieldError(t.path, t.lines[i], name, row[c], "want a number")
	}
	return v, nil
}

// readAlibabaDerived reads CloudSimPy's jobs.csv derived from Alibaba
// 2017 (header: ,submit_time,duration,cpu,memory,job_id,task_id,instances_num,disk).
func readAlibabaDerived(path string, m ModelOptions) ([]Job, error) {
	t, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	if len(t.rows) == 0 {
		return nil, fieldError(path, 0, "", "", "empty file: want a header and task rows")
	}
	names := []string{"submit_time", "duration", "cpu", "memory", "job_id", "task_id", "instances_num"}
	cols := make([]int, len(names))
	for i, n := range names {
		if cols[i], err = t.column(t.rows[0], n); err != nil {
			return nil, err
		}
	}
	tasks := make([]aliTask, 0, len(t.rows)-1)
	for i := 1; i < len(t.rows); i++ {
		var v [4]float64
		for k := 0; k < 4; k++ {
			if v[k], err = t.num(i, cols[k], names[k]); err != nil {
				return nil, err
			}
		}
		inst, err := t.num(i, cols[6], names[6])
		if err != nil {
			return nil, err
		}
		task := aliTask{line: t.lines[i], job: strings.TrimSpace(t.rows[i][cols[4]]), task: strings.TrimSpace(t.rows[i][cols[5]]),
			submit: v[0], duration: v[1], cores: v[2], memNorm: v[3], instances: int(inst)}
		if err := task.check(path); err != nil {
			return nil, err
		}
		tasks = append(tasks, task)
	}
	return alibabaJobs(path, tasks, m)
}

// readAlibabaRaw reads the v2017 batch_task table (task_create_time,
// task_end_time, job_id, task_id, number_of_instances, status, plan_cpu,
// plan_mem), with or without its header row. Only Terminated tasks with a
// CPU and memory request are kept: the others never finished, so they have
// no duration (and ten Terminated rows of the 2017 table ask for nothing). An instance
// is taken to run from the task's creation to its end (at least 1 s), an
// upper bound since the table has no per-instance times.
func readAlibabaRaw(path string, m ModelOptions) ([]Job, error) {
	t, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	names := []string{"task_create_time", "task_end_time", "job_id", "task_id", "number_of_instances", "status", "plan_cpu", "plan_mem"}
	var tasks []aliTask
	for i, row := range t.rows {
		if i == 0 && len(row) > 0 {
			if _, err := strconv.ParseFloat(strings.TrimSpace(row[0]), 64); err != nil {
				continue // the header row some copies carry
			}
		}
		if len(row) != len(names) {
			return nil, fieldError(path, t.lines[i], "", strings.Join(row, ","), "%d columns: want %d (%s)", len(row), len(names), strings.Join(names, ", "))
		}
		if strings.TrimSpace(row[5]) != "Terminated" || strings.TrimSpace(row[6]) == "" || strings.TrimSpace(row[7]) == "" {
			continue
		}
		var v [8]float64
		for _, k := range []int{0, 1, 4, 6, 7} {
			if v[k], err = t.num(i, k, names[k]); err != nil {
				return nil, err
			}
		}
		task := aliTask{line: t.lines[i], job: strings.TrimSpace(row[2]), task: strings.TrimSpace(row[3]),
			submit: v[0], duration: math.Max(1, v[1]-v[0]), cores: v[6] / 100, memNorm: v[7], instances: int(v[4])}
		if err := task.check(path); err != nil {
			return nil, err
		}
		tasks = append(tasks, task)
	}
	return alibabaJobs(path, tasks, m)
}

func (a aliTask) check(path string) error {
	switch {
	case a.job == "":
		return fieldError(path, a.line, "job_id", a.job, "want a job id")
	case a.task == "":
		return fieldError(path, a.line, "task_id", a.task, "want a task id")
	case a.instances < 1:
		return fieldError(path, a.line, "instances", strconv.Itoa(a.instances), "want at least 1 instance")
	case a.duration < 0:
		return fieldError(path, a.line, "duration", fmt.Sprint(a.duration), "want a non-negative number of seconds")
	case a.cores < 0:
		return fieldError(path, a.line, "cpu", fmt.Sprint(a.cores), "want a non-negative number of cores")
	case a.memNorm <= 0 || a.memNorm > 1:
		return fieldError(path, a.line, "memory", fmt.Sprint(a.memNorm), "want a fraction of a machine's memory in (0, 1]")
	}
	return nil
}

// alibabaJobs groups tasks into jobs. The trace has no edges, so a job's
// tasks form a chain in the order the file lists them: each task is a
// vertex fed by the one before through a scatter-gather edge. A job
// arrives when its first task was created, measured from the earliest
// task of the file (creation times start before the trace, at -1078 s).
func alibabaJobs(path string, tasks []aliTask, m ModelOptions) ([]Job, error) {
	if len(tasks) == 0 {
		return nil, nil
	}
	origin := tasks[0].submit
	byJob := map[string][]aliTask{}
	var order []string
	for _, t := range tasks {
		origin = math.Min(origin, t.submit)
		if _, ok := byJob[t.job]; !ok {
			order = append(order, t.job)
		}
		byJob[t.job] = append(byJob[t.job], t)
	}
	jobs := make([]Job, 0, len(order))
	for _, id := range order {
		ts := byJob[id]
		submit := ts[0].submit
		stages := make([]stage, len(ts))
		seen := map[string]int{}
		for i, t := range ts {
			submit = math.Min(submit, t.submit)
			name := "t" + t.task
			if prev, dup := seen[name]; dup {
				return nil, fieldError(path, t.line, "task_id", t.task, "job %s lists this task twice (also line %d)", id, ts[prev].line)
			}
			seen[name] = i
			stages[i] = stage{name: name, tasks: t.instances, memoryMB: m.denormalise(t.memNorm),
				vcores: max(1, int(math.Ceil(t.cores))), durations: []time.Duration{secs(t.duration)}}
			if i > 0 {
				stages[i].parents = []string{stages[i-1].name}
			}
		}
		capTasks(stages, m.MaxTasksPerJob)
		jobID := "j" + id
		spec, err := buildSpec(path, ts[0].line, jobID, m, stages, 0)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, Job{ID: jobID, Submit: secs(submit - origin), Spec: spec})
	}
	return jobs, nil
}

// denormalise turns a fraction of a machine's memory into MB, rounded up
// to the allocation step.
func (m ModelOptions) denormalise(frac float64) int64 {
	steps := int64(math.Ceil(frac * float64(m.AlibabaNodeMemoryMB) / float64(m.MemoryStepMB)))
	return max(1, steps) * m.MemoryStepMB
}
