package streaming

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ebb-am/ebb/dag"
)

// Programs that Streaming runs as Java classes and ebb runs itself.
const (
	identityMapper  = "org.apache.hadoop.mapred.lib.IdentityMapper"
	identityReducer = "org.apache.hadoop.mapred.lib.IdentityReducer"
	hashPartitioner = "org.apache.hadoop.mapred.lib.HashPartitioner"
	keyFieldPart    = "org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner"
	textInput       = "org.apache.hadoop.mapred.TextInputFormat"
	keyValueInput   = "org.apache.hadoop.mapred.KeyValueTextInputFormat"
	textOutput      = "org.apache.hadoop.mapred.TextOutputFormat"
)

// Default memory of a task when the job sets none (Hadoop's is 1024 MB, a
// JVM's; a streaming program and ebb's sort buffer need less).
const defaultMemoryMB = 256

// BuildOptions are what the command knows beside the job.
type BuildOptions struct {
	// Cwd is the client's working directory: local relative paths are
	// relative to it, and a local Hadoop runs its tasks there.
	Cwd string
	// Local: the job runs on the local world.
	Local bool
}

// Build makes the DAG that runs the job.
func Build(j *Job, s *Settings, p *Plan, o BuildOptions) (*dag.Spec, error) {
	if p.Splits == 0 {
		return nil, errorf(ExitIOError, "Error Launching job : the inputs hold no file (%s): ebb runs no job without a map task", strings.Join(j.Inputs, ","))
	}
	if err := checkClasses(j, s); err != nil {
		return nil, err
	}
	files, err := shippedFiles(j, o)
	if err != nil {
		return nil, err
	}
	reduces := 1
	if s.Reduces >= 0 {
		reduces = s.Reduces
	}
	if j.NumReduceTasks >= 0 {
		reduces = j.NumReduceTasks
	}
	mapOnly := reduces == 0 || j.Reducer == "NONE"
	env := taskEnv(j)
	spec := &dag.Spec{
		Name:   jobName(s.JobName),
		Group:  dag.GroupSpec{Name: "streaming"},
		Output: p.Output,
	}
	mapper, err := command(j.Mapper, "-mapper", files, o)
	if err != nil {
		return nil, err
	}
	inputs := make([]string, len(p.Files))
	for i, f := range p.Files {
		inputs[i] = f.Path
	}
	m := dag.VertexSpec{
		Name: "map", Command: mapper, Parallelism: p.Splits, MemoryMB: memory(s.MapMemoryMB),
		Inputs: inputs, SplitSize: p.SplitSize, Env: env,
		Stream: &dag.StreamSpec{
			InputFormat:     map[bool]string{true: dag.FormatKeyValue, false: dag.FormatText}[j.InputFormat == keyValueInput],
			InputSeparator:  s.MapInputSeparator,
			OutputSeparator: s.MapOutputSeparator, KeyFields: s.MapKeyFields,
			IgnoreExitCode: !s.NonZeroExitIsFailure, Files: files, ReporterPrefix: s.ReporterPrefix,
			SortBufferMB: s.SortMB,
		},
	}
	if s.KeyValueSeparator != "" {
		m.Stream.KeyValueSeparator = s.KeyValueSeparator[:1]
	}
	if mapOnly {
		m.Stream.SinkSeparator, m.Stream.LazyOutput = s.OutputSeparator, j.LazyOutput
		spec.Vertices = []dag.VertexSpec{m}
		return spec, nil
	}
	r := dag.VertexSpec{
		Name: "reduce", Parallelism: reduces, MemoryMB: memory(s.ReduceMemMB), Env: env,
		Stream: &dag.StreamSpec{
			InputSeparator:  s.ReduceInputSeparator,
			OutputSeparator: s.ReduceOutputSeparator, KeyFields: s.ReduceKeyFields,
			SinkSeparator: s.OutputSeparator, LazyOutput: j.LazyOutput,
			IgnoreExitCode: !s.NonZeroExitIsFailure, Files: files, ReporterPrefix: s.ReporterPrefix,
		},
	}
	aggregate := dag.Command{"ebb", "task", "aggregate"}
	aggregateCombiner := false
	switch {
	case strings.EqualFold(j.Reducer, "aggregate"):
		// ValueAggregatorReducer, and its combiner, which Streaming adds;
		// Java classes both, so the stream.reduce.* keys do not apply.
		r.Command = aggregate
		r.Stream.InputSeparator, r.Stream.OutputSeparator, r.Stream.KeyFields = "", "", 1
		aggregateCombiner = true
	case j.Reducer == "" || j.Reducer == identityReducer:
		// IdentityReducer writes what it gets; the map's key may hold
		// tab-separated fields, which the reducer's lines must keep in the key.
		r.Command = dag.Command{"cat"}
		r.Stream.InputSeparator, r.Stream.OutputSeparator = "", ""
		r.Stream.KeyFields = 1
		if s.MapOutputSeparator == "" || s.MapOutputSeparator == "\t" {
			r.Stream.KeyFields = max(s.MapKeyFields, 1)
		}
	default:
		if r.Command, err = command(j.Reducer, "-reducer", files, o); err != nil {
			return nil, err
		}
	}
	sh := &dag.ShuffleSpec{KeyFieldSeparator: s.KeyFieldSeparator}
	if partitionerClass(j, s) == keyFieldPart {
		sh.Partitioner, sh.PartitionerOptions = dag.PartitionKeyField, s.PartitionerOptions
	}
	if s.ComparatorClass != "" {
		sh.SortOptions = s.ComparatorOptions
	}
	if aggregateCombiner {
		sh.Combiner = &dag.CombinerSpec{Command: append(aggregate, "--combine"), MinSpills: s.CombineMinSpills}
	} else if j.Combiner != "" {
		c, err := command(j.Combiner, "-combiner", files, o)
		if err != nil {
			return nil, err
		}
		sh.Combiner = &dag.CombinerSpec{Command: c, InputSeparator: s.ReduceInputSeparator,
			OutputSeparator: s.ReduceOutputSeparator, KeyFields: s.ReduceKeyFields, MinSpills: s.CombineMinSpills}
	}
	spec.Vertices = []dag.VertexSpec{m, r}
	spec.Edges = []dag.EdgeSpec{{From: "map", To: "reduce", Type: dag.ScatterGather, Shuffle: sh}}
	return spec, nil
}

func memory(mb int64) int64 {
	if mb > 0 {
		return mb
	}
	return defaultMemoryMB
}

func partitionerClass(j *Job, s *Settings) string {
	if j.Partitioner != "" {
		return j.Partitioner
	}
	return s.PartitionerClass
}

// checkClasses refuses the Java classes ebb cannot stand in for.
func checkClasses(j *Job, s *Settings) error {
	switch j.InputFormat {
	case "", textInput, "TextInputFormat":
		if s.IgnoreKey != "" && s.IgnoreKey != "true" {
			return refuse("-D stream.map.input.ignoreKey", s.IgnoreKey, "want true with TextInputFormat: byte offsets as keys are not supported")
		}
	case keyValueInput, "KeyValueTextInputFormat":
		j.InputFormat = keyValueInput
		if s.IgnoreKey != "" && s.IgnoreKey != "false" {
			return refuse("-D stream.map.input.ignoreKey", s.IgnoreKey, "want false with KeyValueTextInputFormat")
		}
	default:
		return refuse("-inputformat", j.InputFormat, "want "+textInput+" or "+keyValueInput)
	}
	switch j.OutputFormat {
	case "", textOutput, "TextOutputFormat":
	default:
		return refuse("-outputformat", j.OutputFormat, "want "+textOutput)
	}
	switch p := partitionerClass(j, s); p {
	case "", hashPartitioner, "org.apache.hadoop.mapreduce.lib.partition.HashPartitioner":
	case keyFieldPart, "org.apache.hadoop.mapreduce.lib.partition.KeyFieldBasedPartitioner":
		if j.Partitioner != "" {
			j.Partitioner = keyFieldPart
		} else {
			s.PartitionerClass = keyFieldPart
		}
	default:
		return refuse("-partitioner", p, "want "+hashPartitioner+" or "+keyFieldPart)
	}
	if j.Mapper == "" || j.Mapper == identityMapper {
		return refuse("-mapper", j.Mapper, "want a command: Hadoop's IdentityMapper passes byte offsets as keys, which ebb streaming does not reproduce (use -mapper cat)")
	}
	for _, c := range []struct{ opt, v string }{{"-mapper", j.Mapper}, {"-combiner", j.Combiner}, {"-reducer", j.Reducer}} {
		if c.v == identityReducer && c.opt == "-reducer" {
			continue
		}
		if javaClass.MatchString(c.v) {
			return refuse(c.opt, c.v, "want a command (or NONE, aggregate or IdentityReducer for -reducer): other Java classes are not run by ebb streaming")
		}
	}
	return nil
}

// javaClass is a string Streaming would try as a Java class of Hadoop's.
var javaClass = regexp.MustCompile(`^org\.apache\.hadoop\.[A-Za-z0-9_.$]+$`)

// jobName makes the job's name a DAG name (letters, digits, _ . -).
func jobName(n string) string {
	if n == "" {
		return "streamjob"
	}
	b := []byte(n)
	for i, c := range b {
		if !nameByte(c) {
			b[i] = '_'
		}
	}
	if b[0] == '_' || b[0] == '.' || b[0] == '-' {
		return "job" + string(b)
	}
	return string(b)
}

// nameByte says c may stand in a DAG's name.
func nameByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' || c == '-'
}

// taskEnv is what Streaming exports beside the task's own variables: the
// job's keys with every non-alphanumeric character as '_', then -cmdenv
// (whose values are split on spaces, as Streaming's).
func taskEnv(j *Job) map[string]string {
	env := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(j.Conf)) {
		env[EnvName(k)] = j.Conf[k]
	}
	for _, c := range j.CmdEnv {
		for _, kv := range strings.Split(c, " ") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	if len(env) == 0 {
		return nil
	}
	return env
}

// shippedFiles are -files and -file entries as the DAG's stream files:
// each must exist (local ones checked now, as Streaming does).
func shippedFiles(j *Job, o BuildOptions) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range j.Files {
		src, name, _ := strings.Cut(f, "#")
		src = strings.TrimPrefix(src, "file:")
		if !strings.Contains(src, "://") {
			if !filepath.IsAbs(src) {
				src = filepath.Join(o.Cwd, src)
			}
			if st, err := os.Stat(src); err != nil || st.IsDir() {
				return nil, errorf(ExitFailed, "File: %s does not exist.", Show(src))
			}
		}
		if name == "" {
			name = filepath.Base(src)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, src+"#"+name)
	}
	return out, nil
}

// command turns a -mapper/-reducer/-combiner string into an argv as
// Streaming's PipeMapRed.splitArgs does (spaces outside quotes separate,
// quotes group and are dropped, no shell), then finds argv[0] where
// Streaming would: a shipped file of that name in the task's directory,
// else (relative, locally) the client's directory, else PATH. A local
// program that cannot run is refused now, before anything starts.
func command(s, opt string, files []string, o BuildOptions) (dag.Command, error) {
	argv := SplitArgs(s)
	if len(argv) == 0 {
		return nil, refuse(opt, s, "want a command")
	}
	prog := argv[0]
	shipped := map[string]bool{}
	shippedFrom := map[string]string{} // source path -> name in the task's directory
	for _, f := range files {
		src, name, _ := strings.Cut(f, "#")
		shipped[name] = true
		shippedFrom[src] = name
	}
	abs := prog
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(o.Cwd, prog)
	}
	switch {
	case shippedFrom[filepath.Clean(abs)] != "":
		// Streaming runs a shipped program from the task's directory
		// (StreamJob.unqualifyIfLocalPath), wherever it was named from.
		argv[0] = "./" + shippedFrom[filepath.Clean(abs)]
	case shipped[filepath.Clean(prog)] && !filepath.IsAbs(prog):
		// mapper.py or ./mapper.py: the shipped file in the task's directory.
		argv[0] = "./" + filepath.Clean(prog)
	case filepath.IsAbs(prog):
		if err := checkRunnable(prog); err != nil {
			return nil, refuse(opt, s, err.Error())
		}
	case o.Local && fileExists(filepath.Join(o.Cwd, prog)):
		// A local Hadoop runs its tasks in the client's directory.
		argv[0] = filepath.Join(o.Cwd, prog)
		if err := checkRunnable(argv[0]); err != nil {
			return nil, refuse(opt, s, err.Error())
		}
	case strings.Contains(prog, "/"):
		return nil, refuse(opt, s, fmt.Sprintf("%s is not a file here: ship it with -file or -files, or give a program on PATH", prog))
	case o.Local:
		// Locally the tasks' PATH is this one: a program missing from it
		// would fail every task.
		if _, err := exec.LookPath(prog); err != nil {
			return nil, refuse(opt, s, fmt.Sprintf("%s is not on PATH, in this directory or shipped with -file", prog))
		}
	}
	if o.Local {
		// Arguments naming files in the client's directory (python3
		// mapper.py) find them there, as in a local Hadoop's tasks.
		for i, a := range argv[1:] {
			if !filepath.IsAbs(a) && !strings.HasPrefix(a, "-") && !shipped[a] && fileExists(filepath.Join(o.Cwd, a)) {
				argv[i+1] = filepath.Join(o.Cwd, a)
			}
		}
	}
	return argv, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func checkRunnable(p string) error {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return fmt.Errorf("%s does not exist", p)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a file", p)
	case st.Mode()&0o111 == 0:
		return fmt.Errorf("%s is not executable", p)
	}
	return nil
}

// SplitArgs is Streaming's PipeMapRed.splitArgs.
func SplitArgs(s string) []string {
	var out []string
	const (
		outside = iota
		single
		double
	)
	state, start := outside, 0
	for c := 0; c <= len(s); c++ {
		last := c == len(s)
		end := false
		if !last {
			prev := state
			switch s[c] {
			case '\'':
				switch state {
				case outside:
					state = single
				case single:
					state = outside
				}
				end = state != prev
			case '"':
				switch state {
				case outside:
					state = double
				case double:
					state = outside
				}
				end = state != prev
			case ' ':
				end = state == outside
			}
		}
		if last || end {
			if c != start {
				out = append(out, s[start:c])
			}
			start = c + 1
		}
	}
	return out
}
