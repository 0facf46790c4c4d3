package dag

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Spec is one DAG as submitted: vertices joined by edges, the ContainerGroup
// its tasks run in, and optional scheduling hints.
type Spec struct {
	Name string `yaml:"name" json:"name"`
	// Priority orders DAGs under the fifo priority scheme: higher first,
	// then by submission.
	Priority int `yaml:"priority,omitempty" json:"priority,omitempty"`
	// Goal is an optional completion-time goal (a soft deadline).
	Goal *Goal `yaml:"goal,omitempty" json:"goal,omitempty"`
	// Scaling asks the autoscaler for a ramp: "aggressive", "conservative"
	// or "" (the group's configured ramp).
	Scaling string    `yaml:"scaling,omitempty" json:"scaling,omitempty"`
	Group   GroupSpec `yaml:"containerGroup" json:"containerGroup"`
	// Output is where the sink vertices' files are committed (a local path,
	// an hdfs:// or an s3:// URL). Relative local paths are relative to the
	// spec file.
	Output string `yaml:"output,omitempty" json:"output,omitempty"`
	// Overwrite lets the DAG write to an output that already holds
	// results: they are replaced by the DAG's, and only once it has
	// succeeded. Without it such an output is refused at submission.
	Overwrite bool         `yaml:"overwrite,omitempty" json:"overwrite,omitempty"`
	Vertices  []VertexSpec `yaml:"vertices" json:"vertices"`
	Edges     []EdgeSpec   `yaml:"edges,omitempty" json:"edges,omitempty"`
}

// Goal is a completion-time goal: either relative to submission (Within)
// or absolute (By). At most one is set.
type Goal struct {
	Within Duration  `yaml:"within,omitempty" json:"within,omitempty"`
	By     time.Time `yaml:"by,omitempty" json:"by,omitempty"`
}

// Deadline is the goal as an absolute time for a DAG submitted at submit.
func (g *Goal) Deadline(submit time.Time) (time.Time, bool) {
	switch {
	case g == nil:
		return time.Time{}, false
	case !g.By.IsZero():
		return g.By, true
	case g.Within > 0:
		return submit.Add(time.Duration(g.Within)), true
	}
	return time.Time{}, false
}

// GroupSpec describes the ContainerGroup a DAG's tasks run in. DAGs naming
// the same group with identical properties share its workers.
type GroupSpec struct {
	Name string `yaml:"name" json:"name"`
	// WorkerMemoryMB is what each worker offers to attempts. 0 (or no
	// field) leaves it to ebb, which sizes the workers from the tasks'
	// memory and the cluster's container sizes (AutoSized).
	WorkerMemoryMB int64             `yaml:"workerMemoryMB,omitempty" json:"workerMemoryMB,omitempty"`
	WorkerVCores   int               `yaml:"workerVCores,omitempty" json:"workerVCores,omitempty"`
	Env            map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// MaxWorkers caps the group's workers (0: mr3.container.max.num.workers).
	MaxWorkers int `yaml:"maxWorkers,omitempty" json:"maxWorkers,omitempty"`
	// Resources are YARN resource types other than memory and vcores that
	// each worker's container asks for, by name (yarn.io/gpu: 1).
	Resources map[string]int64 `yaml:"resources,omitempty" json:"resources,omitempty"`
	// NodeLabel is the YARN node label (partition) the workers run in
	// ("": the queue's default partition). Groups with different labels
	// are different groups: a worker never moves between partitions.
	NodeLabel string `yaml:"nodeLabel,omitempty" json:"nodeLabel,omitempty"`
}

// VertexSpec is one stage: a command run once per task.
type VertexSpec struct {
	Name        string  `yaml:"name" json:"name"`
	Command     Command `yaml:"command" json:"command"`
	Parallelism int     `yaml:"parallelism" json:"parallelism"`
	MemoryMB    int64   `yaml:"memoryMB" json:"memoryMB"`
	VCores      int     `yaml:"vcores,omitempty" json:"vcores,omitempty"`
	// Resources are other YARN resource types one task needs (yarn.io/gpu:
	// 1). Workers are the group's, so the group's workers carry them
	// (WorkerResources).
	Resources map[string]int64 `yaml:"resources,omitempty" json:"resources,omitempty"`
	// Profile is the fraction of a node's CPU, memory and I/O one running
	// task uses (resource-aware scheduling). Consumers of a scatter-gather
	// edge may give separate shuffle and reduce profiles instead.
	Profile        *Profile `yaml:"profile,omitempty" json:"profile,omitempty"`
	ShuffleProfile *Profile `yaml:"shuffleProfile,omitempty" json:"shuffleProfile,omitempty"`
	ReduceProfile  *Profile `yaml:"reduceProfile,omitempty" json:"reduceProfile,omitempty"`
	// Inputs are files or globs (local paths, hdfs:// or s3:// URLs) split by byte
	// ranges across the vertex's tasks.
	Inputs []string `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	// InputMode is how a task sees its splits: "" or "stream" (a named
	// pipe the worker streams the split into while the task reads it) or
	// "file" (a regular file copied before the task starts, for programs
	// that seek or read their input twice).
	InputMode string `yaml:"inputMode,omitempty" json:"inputMode,omitempty"`
	// RecordLength says the input files hold fixed-length binary records
	// of this many bytes (TeraGen's are 100): splits are then cut on record
	// boundaries and copied exactly, instead of widened to whole lines
	// (which a record holding a newline byte would break). 0: lines.
	RecordLength int64 `yaml:"recordLength,omitempty" json:"recordLength,omitempty"`
	// SplitSize cuts the inputs as Hadoop's FileInputFormat does instead
	// of into parallelism near-equal ranges: each file on its own into
	// chunks of this many bytes (the last up to 1.1 times that; an empty
	// file one empty split), ordered largest first, one per task, so
	// parallelism must be their number. 0: near-equal ranges.
	SplitSize int64             `yaml:"splitSize,omitempty" json:"splitSize,omitempty"`
	Env       map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// SimDurations are task run times used only by `ebb sim` (one per task,
	// or one for all tasks).
	SimDurations []Duration `yaml:"simDurations,omitempty" json:"simDurations,omitempty"`
	// Speculative turns backup attempts for this vertex's stragglers on or
	// off; nil: the AM's ebb.speculation.enabled.
	Speculative *bool `yaml:"speculative,omitempty" json:"speculative,omitempty"`
	// Stream makes the vertex a Hadoop Streaming program whose stdin and
	// stdout the worker handles (stream.go).
	Stream *StreamSpec `yaml:"stream,omitempty" json:"stream,omitempty"`
}

// Input modes of a vertex (VertexSpec.InputMode).
const (
	InputStream = "stream"
	InputFile   = "file"
)

// Profile is a fraction (0..1] of one node's resources used by a running task.
type Profile struct {
	CPU    float64 `yaml:"cpu" json:"cpu"`
	Memory float64 `yaml:"memory" json:"memory"`
	IO     float64 `yaml:"io" json:"io"`
}

// EdgeSpec joins a producer vertex to a consumer vertex.
type EdgeSpec struct {
	From string   `yaml:"from" json:"from"`
	To   string   `yaml:"to" json:"to"`
	Type EdgeType `yaml:"type" json:"type"`
	// Shuffle makes a scatter-gather edge between stream vertices keyed:
	// the worker partitions, sorts and merges the records (stream.go).
	Shuffle *ShuffleSpec `yaml:"shuffle,omitempty" json:"shuffle,omitempty"`
}

// EdgeType says how producer outputs are routed to consumer tasks.
type EdgeType int

const (
	// ScatterGather: every producer task writes one partition per consumer
	// task; consumer task j reads partition j of every producer task.
	ScatterGather EdgeType = iota
	// OneToOne: consumer task j reads the single output of producer task j.
	OneToOne
	// Broadcast: every consumer task reads the single output of every
	// producer task.
	Broadcast
)

var edgeTypeNames = []string{"scatter-gather", "one-to-one", "broadcast"}

func (t EdgeType) String() string {
	if int(t) < len(edgeTypeNames) {
		return edgeTypeNames[t]
	}
	return fmt.Sprintf("EdgeType(%d)", int(t))
}

// ParseEdgeType reads an edge type name.
func ParseEdgeType(s string) (EdgeType, error) {
	for i, n := range edgeTypeNames {
		if s == n {
			return EdgeType(i), nil
		}
	}
	return 0, fmt.Errorf("unknown edge type %q: want one of scatter-gather, one-to-one, broadcast", s)
}

func (t EdgeType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalYAML reads an edge type, naming the line when it is unknown.
func (t *EdgeType) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseEdgeType(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*t = v
	return nil
}

func (t *EdgeType) UnmarshalText(b []byte) error {
	v, err := ParseEdgeType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Partitions is how many partitions a producer task writes for this edge,
// given the consumer's parallelism.
func (t EdgeType) Partitions(consumerParallelism int) int {
	if t == ScatterGather {
		return consumerParallelism
	}
	return 1
}

// AutoSized says the DAG leaves its workers' size to ebb: a worker then
// holds up to a few of the DAG's largest tasks (as many as its widest
// vertex runs at once, at most ebb.worker.auto.size.max.tasks), rounded up
// to the cluster's minimum container and at most its largest; see
// scheduler.SizeWorker for the rule.
func (g GroupSpec) AutoSized() bool { return g.WorkerMemoryMB == 0 }

// WorkerResources are the other resource types each worker of the DAG's
// group asks for: the group's, and for a type only vertices name, the most
// one of their tasks needs (a worker runs any of the DAG's tasks). nil
// when none.
func (s *Spec) WorkerResources() map[string]int64 {
	var out map[string]int64
	put := func(name string, n int64) {
		if out == nil {
			out = map[string]int64{}
		}
		out[name] = max(out[name], n)
	}
	for name, n := range s.Group.Resources {
		put(name, n)
	}
	for _, v := range s.Vertices {
		for name, n := range v.Resources {
			if _, fixed := s.Group.Resources[name]; !fixed {
				put(name, n)
			}
		}
	}
	return out
}
