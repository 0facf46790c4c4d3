package task

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Context is what an attempt learns from its environment.
type Context struct {
	DAGID       string
	DAGName     string
	Vertex      string
	TaskIndex   int
	Attempt     int
	AttemptID   string
	Parallelism int
	MemoryMB    int64
	WorkDir     string
	InputDir    string
	OutputDir   string
	// Outputs lists the outgoing edges; empty for a sink vertex.
	Outputs      []Output
	ProgressFile string
	// SpillBytes, from the optional EBB_TASK_SPILL_BYTES, overrides how
	// many bytes of records the sorting built-ins buffer before spilling a
	// run (spillBudget); 0 derives it from MemoryMB.
	SpillBytes int64

	// sortOpts are the external sort's test knobs.
	sortOpts sortOptions
}

// MissingEnvError names a contract variable that is not set.
type MissingEnvError struct{ Name string }

func (e *MissingEnvError) Error() string {
	return fmt.Sprintf("task contract variable %s is not set (is this running under an ebb worker?)", e.Name)
}

// FromEnv reads the task contract from the process environment.
func FromEnv() (*Context, error) { return fromLookup(os.LookupEnv) }

func fromLookup(lookup func(string) (string, bool)) (*Context, error) {
	var firstErr error
	str := func(name string, required bool) string {
		v, ok := lookup(name)
		if !ok && required && firstErr == nil {
			firstErr = &MissingEnvError{Name: name}
		}
		return v
	}
	num := func(name string) int64 {
		v := str(name, true)
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("task contract variable %s=%q is not an integer", name, v)
		}
		return n
	}
	c := &Context{
		DAGID:        str(EnvDAGID, true),
		DAGName:      str(EnvDAGName, false),
		Vertex:       str(EnvVertex, true),
		TaskIndex:    int(num(EnvTaskIndex)),
		Attempt:      int(num(EnvAttempt)),
		AttemptID:    str(EnvAttemptID, true),
		Parallelism:  int(num(EnvParallelism)),
		MemoryMB:     num(EnvMemoryMB),
		WorkDir:      str(EnvWorkDir, false),
		InputDir:     str(EnvInputDir, true),
		OutputDir:    str(EnvOutputDir, true),
		ProgressFile: str(EnvProgressFile, false),
	}
	if v := str(EnvSpillBytes, false); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if (err != nil || n <= 0) && firstErr == nil {
			firstErr = fmt.Errorf("%s=%q: want a positive number of bytes", EnvSpillBytes, v)
		}
		c.SpillBytes = n
	}
	outs, err := ParseOutputs(str(EnvOutputs, true))
	if err != nil && firstErr == nil {
		firstErr = err
	}
	c.Outputs = outs
	if firstErr != nil {
		return nil, firstErr
	}
	return c, nil
}

// IsSink says whether the vertex has no outgoing edge.
func (c *Context) IsSink() bool { return len(c.Outputs) == 0 }

// InputFiles lists every regular file and named pipe (a streamed split)
// under InputDir, recursively, sorted by path, so tasks read their inputs
// in a stable order.
func (c *Context) InputFiles() ([]string, error) {
	var files []string
	err := filepath.WalkDir(c.InputDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == c.InputDir {
				return fs.SkipAll
			}
			return err
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeNamedPipe != 0 {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing inputs in %s: %w", c.InputDir, err)
	}
	sort.Strings(files)
	return files, nil
}

// ReadLines calls fn for every line of every input file, without its line
// end ("\n" or "\r\n"). The slice is only valid during the call. Progress
// is written as the fraction of input bytes read.
func (c *Context) ReadLines(fn func(file string, line []byte) error) error {
	files, err := c.InputFiles()
	if err != nil {
		return err
	}
	meter := newProgressMeter(c, files)
	for _, f := range files {
		n, err := readFileLines(f, func(line []byte) error { return fn(f, line) })
		if err != nil {
			return err
		}
		meter.add(n)
	}
	return nil
}

// progressMeter turns bytes read out of the input files into progress,
// written at most about a hundred times.
type progressMeter struct {
	c                  *Context
	total, done, shown int64
}

func newProgressMeter(c *Context, files []string) *progressMeter {
	m := &progressMeter{c: c}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			m.total += st.Size()
		}
	}
	return m
}

func (m *progressMeter) add(n int64) {
	m.done += n
	if m.total > 0 && (m.done-m.shown > m.total/100 || m.done >= m.total) && m.done != m.shown {
		m.shown = m.done
		m.c.SetProgress(float64(m.done) / float64(m.total))
	}
}

// SetProgress records progress (0..1) for the worker to report. It writes
// a temporary file and renames it so the worker never reads half a number;
// failures are ignored because progress is only informative.
func (c *Context) SetProgress(p float64) {
	if c.ProgressFile == "" {
		return
	}
	p = min(max(p, 0), 1)
	tmp := c.ProgressFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatFloat(p, 'f', 4, 64)), 0o644); err != nil {
		return
	}
	_ = os.Rename(tmp, c.ProgressFile)
}

// anyPipe says whether some input is a named pipe: a split the worker
// streams, which can be read only once.
func anyPipe(files []string) bool {
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
			return true
		}
	}
	return false
}
