package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// Scenario is ebb's own JSON format for hand-made workloads: jobs whose
// DAGs are written exactly as `ebb dag submit` takes them, plus optional
// cloud fields (zero when absent) a scenario may pin.
type Scenario struct {
	Name         string
	Nodes        int
	NodeMemoryMB int64
	NodeVCores   int
	Jobs         []Job
}

type scenarioFile struct {
	Name string `json:"name"`
	// Notes are for people (where the numbers come from); the sim ignores
	// them.
	Notes        []string      `json:"notes"`
	Nodes        int           `json:"nodes"`
	NodeMemoryMB int64         `json:"nodeMemoryMB"`
	NodeVCores   int           `json:"nodeVCores"`
	Jobs         []scenarioJob `json:"jobs"`
}

type scenarioJob struct {
	ID     string          `json:"id"`
	Submit submitTime      `json:"submit"`
	DAG    json.RawMessage `json:"dag"`
}

// ReadScenario reads an ebb scenario file; jobs keep the file's order.
func ReadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return ParseScenario(path, data)
}

// ParseScenario reads a scenario from data; name is used in errors. Each
// job's DAG goes through dag.Parse, so errors inside it name the line of
// the scenario file and a field such as jobs[2].dag.vertices[0].memoryMB.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f scenarioFile
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(name, data, err)
	}
	s := &Scenario{Name: f.Name, Nodes: f.Nodes, NodeMemoryMB: f.NodeMemoryMB, NodeVCores: f.NodeVCores}
	for _, c := range []struct {
		field string
		v     int64
	}{{"nodes", int64(f.Nodes)}, {"nodeMemoryMB", f.NodeMemoryMB}, {"nodeVCores", int64(f.NodeVCores)}} {
		if c.v < 0 {
			return nil, fieldError(name, lineOf(data, []byte(`"`+c.field+`"`), 0), c.field, fmt.Sprint(c.v), "want 0 (the sim's default) or more")
		}
	}
	if len(f.Jobs) == 0 {
		return nil, fieldError(name, 0, "jobs", "", "a scenario needs at least one job")
	}
	seen := map[string]int{}
	cursor := 0
	for i, j := range f.Jobs {
		field := fmt.Sprintf("jobs[%d]", i)
		// The job's DAG text lies after the previous one's: find it there
		// so identical DAGs still point at their own lines.
		at := bytes.Index(data[cursor:], j.DAG)
		line := 0
		if at >= 0 && len(j.DAG) > 0 {
			cursor += at
			line = lineOf(data, nil, cursor)
			cursor += len(j.DAG)
		}
		if j.ID == "" {
			return nil, fieldError(name, line, field+".id", "", "want a job id")
		}
		if k, dup := seen[j.ID]; dup {
			return nil, fieldError(name, line, field+".id", j.ID, "also the id of jobs[%d]: want unique ids", k)
		}
		seen[j.ID] = i
		if j.Submit < 0 {
			return nil, fieldError(name, line, field+".submit", j.Submit.D().String(), "want a time at or after the scenario's start")
		}
		if len(j.DAG) == 0 || string(j.DAG) == "null" {
			return nil, fieldError(name, line, field+".dag", "", "missing: want a DAG spec")
		}
		spec, err := dag.Parse(name, j.DAG)
		if err != nil {
			return nil, specError(name, line, field+".", err)
		}
		s.Jobs = append(s.Jobs, Job{ID: j.ID, Submit: j.Submit.D(), Spec: spec})
	}
	return s, nil
}

// lineOf is the 1-based line of the first match of needle (or, when needle
// is nil, of byte offset at).
func lineOf(data, needle []byte, at int) int {
	if needle != nil {
		at = bytes.Index(data, needle)
		if at < 0 {
			return 0
		}
	}
	return 1 + bytes.Count(data[:min(at, len(data))], []byte("\n"))
}

// jsonError locates encoding/json's errors by line and column.
func jsonError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var sub *badSubmitError
	switch {
	case errors.As(err, &sub):
		return &Error{File: name, Line: lineOf(data, []byte(sub.raw), 0), Field: "submit", Value: strings.Trim(sub.raw, `"`),
			Msg: "want a duration such as 90s or 1m30s, or a number of seconds", Err: err}
	case errors.As(err, &syn):
		line, col := lineCol(data, int(syn.Offset)-1) // Offset is just past the bad byte
		return &Error{File: name, Line: line, Field: fmt.Sprintf("column %d", col), Msg: syn.Error(), Err: err}
	case errors.As(err, &typ):
		line, col := lineCol(data, int(typ.Offset)-1)
		return &Error{File: name, Line: line, Field: fmt.Sprintf("%s (column %d)", typ.Field, col),
			Msg: fmt.Sprintf("a JSON %s: want %s", typ.Value, typ.Type), Err: err}
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &Error{File: name, Line: lineOf(data, []byte(`"`+field+`"`), 0), Field: field,
			Msg: "unknown field: want name, nodes, nodeMemoryMB, nodeVCores, jobs (and per job id, submit, dag)", Err: err}
	}
	return &Error{File: name, Msg: "not an ebb scenario", Err: err}
}

// lineCol locates byte offset off (0-based) as a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// badSubmitError carries the text of a bad submit time out of
// encoding/json, which does not say where a custom decoder failed, so
// jsonError can find its line.
type badSubmitError struct {
	raw string
	err error
}

func (e *badSubmitError) Error() string { return e.err.Error() }
func (e *badSubmitError) Unwrap() error { return e.err }

// submitTime is a job's submit offset: "90s", "1m30s" or a JSON number of
// seconds, like DAG specs write durations.
type submitTime dag.Duration

func (s *submitTime) UnmarshalJSON(b []byte) error {
	text := strings.Trim(string(b), `"`)
	var d dag.Duration
	if err := d.UnmarshalText([]byte(text)); err != nil {
		return &badSubmitError{raw: string(b), err: err}
	}
	*s = submitTime(d)
	return nil
}

func (s submitTime) D() time.Duration { return time.Duration(s) }
