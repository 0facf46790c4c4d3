package trace

import (
	"fmt"
	"time"
)

// Options say which part of a trace to replay, how fast, and how to model
// what the trace does not record.
type Options struct {
	// Scale multiplies every submit offset: 2 stretches the inter-arrival
	// times to twice as long (half the load), 0.5 shrinks them. 0 means 1.
	Scale float64
	// WindowStart and WindowLength select the jobs submitted in
	// [WindowStart, WindowStart+WindowLength) of the trace's own time
	// (before scaling); the kept jobs are shifted so the window starts at 0.
	// A zero WindowLength keeps everything from WindowStart on.
	WindowStart, WindowLength time.Duration
	// Seed drives every random choice (Decima arrivals and task durations),
	// so the same file, options and seed give the same jobs.
	Seed  int64
	Model ModelOptions
}

// ModelOptions are the parameters of the models that turn a trace's
// numbers into tasks. A zero field takes the default shown; negative
// values are errors. Each one becomes a flag of `ebb sim`.
type ModelOptions struct {
	// SplitMB is the input bytes one SWIM map reads (default 128 MB, an
	// HDFS block): maps = ceil(input / split), at least 1.
	SplitMB float64
	// ReduceInputMB is the shuffle bytes one SWIM reduce takes (default
	// 1024 MB): reduces = ceil(shuffle / this); no shuffle, no reduces.
	ReduceInputMB float64
	// MapMBPerSec and ReduceMBPerSec are the rates a SWIM task processes
	// its bytes at (defaults 50 and 20 MB/s: a reduce also sorts, merges
	// and writes to HDFS).
	MapMBPerSec, ReduceMBPerSec float64
	// MapBase and ReduceBase are a SWIM task's fixed cost before its first
	// byte (JVM start, setup, commit; default 2 s and 4 s).
	MapBase, ReduceBase time.Duration
	// MapMemoryMB and ReduceMemoryMB are the memory a SWIM map or reduce
	// task asks for (defaults 1024 and 2048 MB, Hadoop's usual
	// mapreduce.{map,reduce}.memory.mb).
	MapMemoryMB, ReduceMemoryMB int64
	// MaxTasksPerJob caps a trace job's tasks (default 2000) so one giant
	// job cannot dominate the run's events. A capped job keeps its total
	// task time: it gets fewer, proportionally longer tasks. Hand-made
	// formats (ebb JSON and CSV) are never capped.
	MaxTasksPerJob int
	// WorkerMemoryMB is the worker size of the ContainerGroup trace jobs
	// run in (default 16384 MB), raised for a job whose biggest task needs
	// more.
	WorkerMemoryMB int64
	// Group names the ContainerGroup of trace jobs (default "sim"), so all
	// jobs of a trace share workers.
	Group string
	// AlibabaNodeMemoryMB de-normalises Alibaba 2017's memory column,
	// which is a fraction of a machine's memory (default 65536 MB; the
	// trace does not say how big its machines were).
	AlibabaNodeMemoryMB int64
	// MemoryStepMB rounds de-normalised memory up to a multiple of this
	// (default 128 MB, like YARN's minimum allocation step), at least one
	// step.
	MemoryStepMB int64
	// DecimaMeanInterarrival is the mean gap of the seeded Poisson process
	// that Decima DAGs arrive by (default 25 s, as in the Decima paper).
	DecimaMeanInterarrival time.Duration
	// DecimaJobs is how many jobs to draw (default 0: every DAG of the
	// file once, in a seeded random order; more repeats them, drawn
	// uniformly).
	DecimaJobs int
	// DecimaMemoryMB is the memory of a Decima task (default 2048 MB; the
	// data has none).
	DecimaMemoryMB int64
	// AlibabaDAGMachines is the cluster whose share of the Alibaba 2018
	// DAG arrivals is generated (default 40, the static-40 cluster: each
	// of the 4,034-machine trace's arrivals is kept with probability
	// 40/4034, about one DAG every 21 s).
	AlibabaDAGMachines int64
	// AlibabaDAGSpan is how long the generated arrivals last (default 24h).
	AlibabaDAGSpan time.Duration
}

// DefaultModel returns the documented defaults.
func DefaultModel() ModelOptions {
	return ModelOptions{
		SplitMB: 128, ReduceInputMB: 1024, MapMBPerSec: 50, ReduceMBPerSec: 20,
		MapBase: 2 * time.Second, ReduceBase: 4 * time.Second,
		MapMemoryMB: 1024, ReduceMemoryMB: 2048, MaxTasksPerJob: 2000,
		WorkerMemoryMB: 16384, Group: "sim",
		AlibabaNodeMemoryMB: 65536, MemoryStepMB: 128,
		DecimaMeanInterarrival: 25 * time.Second, DecimaMemoryMB: 2048,
		AlibabaDAGMachines: 40, AlibabaDAGSpan: 24 * time.Hour,
	}
}

// withDefaults fills zero fields with the defaults and rejects negative
// ones, naming the option.
func (m ModelOptions) withDefaults() (ModelOptions, error) {
	d := DefaultModel()
	floats := []struct {
		name string
		p    *float64
		def  float64
	}{
		{"SplitMB", &m.SplitMB, d.SplitMB}, {"ReduceInputMB", &m.ReduceInputMB, d.ReduceInputMB},
		{"MapMBPerSec", &m.MapMBPerSec, d.MapMBPerSec}, {"ReduceMBPerSec", &m.ReduceMBPerSec, d.ReduceMBPerSec},
	}
	for _, f := range floats {
		if *f.p < 0 {
			return m, fmt.Errorf("%w: model option %s = %g: want a positive number (0 for the default %g)", ErrFormat, f.name, *f.p, f.def)
		}
		if *f.p == 0 {
			*f.p = f.def
		}
	}
	ints := []struct {
		name string
		p    *int64
		def  int64
	}{
		{"MapMemoryMB", &m.MapMemoryMB, d.MapMemoryMB}, {"ReduceMemoryMB", &m.ReduceMemoryMB, d.ReduceMemoryMB},
		{"WorkerMemoryMB", &m.WorkerMemoryMB, d.WorkerMemoryMB}, {"AlibabaNodeMemoryMB", &m.AlibabaNodeMemoryMB, d.AlibabaNodeMemoryMB},
		{"MemoryStepMB", &m.MemoryStepMB, d.MemoryStepMB}, {"DecimaMemoryMB", &m.DecimaMemoryMB, d.DecimaMemoryMB},
		{"AlibabaDAGMachines", &m.AlibabaDAGMachines, d.AlibabaDAGMachines},
	}
	for _, f := range ints {
		if *f.p < 0 {
			return m, fmt.Errorf("%w: model option %s = %d: want a positive number (0 for the default %d)", ErrFormat, f.name, *f.p, f.def)
		}
		if *f.p == 0 {
			*f.p = f.def
		}
	}
	durs := []struct {
		name string
		p    *time.Duration
		def  time.Duration
	}{
		{"MapBase", &m.MapBase, d.MapBase}, {"ReduceBase", &m.ReduceBase, d.ReduceBase},
		{"DecimaMeanInterarrival", &m.DecimaMeanInterarrival, d.DecimaMeanInterarrival},
		{"AlibabaDAGSpan", &m.AlibabaDAGSpan, d.AlibabaDAGSpan},
	}
	for _, f := range durs {
		if *f.p < 0 {
			return m, fmt.Errorf("%w: model option %s = %s: want a positive duration (0 for the default %s)", ErrFormat, f.name, *f.p, f.def)
		}
		if *f.p == 0 {
			*f.p = f.def
		}
	}
	if m.MaxTasksPerJob < 0 {
		return m, fmt.Errorf("%w: model option MaxTasksPerJob = %d: want a positive number (0 for the default %d)", ErrFormat, m.MaxTasksPerJob, d.MaxTasksPerJob)
	}
	if m.MaxTasksPerJob == 0 {
		m.MaxTasksPerJob = d.MaxTasksPerJob
	}
	if m.DecimaJobs < 0 {
		return m, fmt.Errorf("%w: model option DecimaJobs = %d: want 0 (every DAG once) or more", ErrFormat, m.DecimaJobs)
	}
	if m.Group == "" {
		m.Group = d.Group
	}
	return m, nil
}

func (o Options) check() (Options, error) {
	if o.Scale < 0 {
		return o, fmt.Errorf("%w: scale %g: want a positive factor (1 = as traced)", ErrFormat, o.Scale)
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.WindowStart < 0 || o.WindowLength < 0 {
		return o, fmt.Errorf("%w: window %s+%s: want a non-negative start and length", ErrFormat, o.WindowStart, o.WindowLength)
	}
	m, err := o.Model.withDefaults()
	o.Model = m
	return o, err
}
