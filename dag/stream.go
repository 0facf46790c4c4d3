package dag

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// keySpecPattern is the form of one -k spec: f1[.c1][nr]*[,f2[.c2][nr]*].
var keySpecPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[nr]*(,[0-9]+(\.[0-9]+)?[nr]*)?$`)

// StreamSpec makes a vertex a Hadoop Streaming program: it reads lines on
// stdin and writes key/value lines on stdout, and the worker does the rest
// (package shuffle). Its stdin holds the lines of its input splits (in
// InputFormat), or, for the consumer of a shuffle edge, the sorted records
// of its partition from every producer as "key TAB value" lines. Its stdout
// is cut into records at the KeyFields-th OutputSeparator: they go into the
// shuffle of its outgoing edge, or, for a sink, to its output file part as
// "key SinkSeparator value" lines (TextOutputFormat).
type StreamSpec struct {
	// InputFormat: "text" (default: each line as it is) or "keyvalue"
	// (the key up to the first KeyValueSeparator, then InputSeparator,
	// then the rest).
	InputFormat       string `yaml:"inputFormat,omitempty" json:"inputFormat,omitempty"`
	KeyValueSeparator string `yaml:"keyValueSeparator,omitempty" json:"keyValueSeparator,omitempty"`
	// InputSeparator goes between key and value on stdin (default TAB).
	InputSeparator string `yaml:"inputSeparator,omitempty" json:"inputSeparator,omitempty"`
	// OutputSeparator and KeyFields cut stdout lines into key and value
	// (default TAB and 1).
	OutputSeparator string `yaml:"outputSeparator,omitempty" json:"outputSeparator,omitempty"`
	KeyFields       int    `yaml:"keyFields,omitempty" json:"keyFields,omitempty"`
	// SinkSeparator goes between key and value in a sink's output file
	// (default TAB).
	SinkSeparator string `yaml:"sinkSeparator,omitempty" json:"sinkSeparator,omitempty"`
	// LazyOutput: a sink task that writes no record leaves no file.
	LazyOutput bool `yaml:"lazyOutput,omitempty" json:"lazyOutput,omitempty"`
	// IgnoreExitCode: a non-zero exit is not a failure (Streaming's
	// stream.non.zero.exit.is.failure=false); the output is kept.
	IgnoreExitCode bool `yaml:"ignoreExitCode,omitempty" json:"ignoreExitCode,omitempty"`
	// Files appear in the task's working directory under their base
	// names (or the name after a '#'), as Streaming's -file and -files
	// ship them: local paths (relative to the spec file) are linked,
	// hdfs:// ones copied.
	Files []string `yaml:"files,omitempty" json:"files,omitempty"`
	// SortBufferMB bounds the records the worker holds in memory before it
	// sorts and spills them (0: a quarter of memoryMB).
	SortBufferMB int64 `yaml:"sortBufferMB,omitempty" json:"sortBufferMB,omitempty"`
	// ReporterPrefix starts the stderr lines that report to the
	// framework (default "reporter:"): PREFIXcounter:GROUP,NAME,AMOUNT and
	// PREFIXstatus:MESSAGE, as Streaming's stream.stderr.reporter.prefix.
	ReporterPrefix string `yaml:"reporterPrefix,omitempty" json:"reporterPrefix,omitempty"`
}

// ShuffleSpec makes a scatter-gather edge keyed: the worker partitions the
// producer's records by key and sorts each partition, and the consumer
// reads the merged, sorted records of its partition on stdin. Both ends
// must be stream vertices.
type ShuffleSpec struct {
	// Partitioner: "hash" (default: Hadoop's HashPartitioner) or
	// "keyfield" (KeyFieldBasedPartitioner with PartitionerOptions).
	Partitioner        string `yaml:"partitioner,omitempty" json:"partitioner,omitempty"`
	PartitionerOptions string `yaml:"partitionerOptions,omitempty" json:"partitionerOptions,omitempty"`
	// KeyFieldSeparator splits keys into fields for the keyfield
	// partitioner and SortOptions (default TAB).
	KeyFieldSeparator string `yaml:"keyFieldSeparator,omitempty" json:"keyFieldSeparator,omitempty"`
	// SortOptions orders keys as KeyFieldBasedComparator ("-k2,2nr");
	// empty: unsigned bytes.
	SortOptions string `yaml:"sortOptions,omitempty" json:"sortOptions,omitempty"`
	// Combiner runs over each partition of each spill of a producer.
	Combiner *CombinerSpec `yaml:"combiner,omitempty" json:"combiner,omitempty"`
}

// CombinerSpec is a combiner program and how its lines are cut.
type CombinerSpec struct {
	Command         Command `yaml:"command" json:"command"`
	InputSeparator  string  `yaml:"inputSeparator,omitempty" json:"inputSeparator,omitempty"`
	OutputSeparator string  `yaml:"outputSeparator,omitempty" json:"outputSeparator,omitempty"`
	KeyFields       int     `yaml:"keyFields,omitempty" json:"keyFields,omitempty"`
	// MinSpills: with at least this many spills, a producer's final merge
	// of each partition runs through the combiner too (0: 3, Hadoop's
	// mapreduce.map.combine.minspills).
	MinSpills int `yaml:"minSpills,omitempty" json:"minSpills,omitempty"`
}

// Partitioners and input formats a spec may name.
const (
	PartitionHash     = "hash"
	PartitionKeyField = "keyfield"
	FormatText        = "text"
	FormatKeyValue    = "keyvalue"
)

// EnvStream is the variable through which the AM hands a stream vertex's
// attempt its StreamIO, as JSON; the worker reads it (the program sees it
// too and may ignore it).
const EnvStream = "EBB_STREAM"

// StreamIO is everything the worker needs to run one stream vertex's
// attempt: its own settings, its keyed output (nil for a sink) and the
// shuffle of its keyed input (nil when it reads splits).
type StreamIO struct {
	Stream StreamSpec   `json:"stream"`
	Out    *ShuffleSpec `json:"out,omitempty"`
	In     *ShuffleSpec `json:"in,omitempty"`
}

// Encode is the JSON the worker reads back with DecodeStreamIO.
func (s *StreamIO) Encode() string {
	b, _ := json.Marshal(s) // plain structs of strings and numbers: cannot fail
	return string(b)
}

// DecodeStreamIO reads EnvStream's value.
func DecodeStreamIO(s string) (*StreamIO, error) {
	var io StreamIO
	if err := json.Unmarshal([]byte(s), &io); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvStream, err)
	}
	return &io, nil
}

// StreamIO is the resolved stream settings of the vertex named v, or nil
// when it is not a stream vertex.
func (s *Spec) StreamIO(v string) *StreamIO {
	for _, vs := range s.Vertices {
		if vs.Name != v || vs.Stream == nil {
			continue
		}
		io := &StreamIO{Stream: *vs.Stream}
		for _, e := range s.Edges {
			if e.From == v && e.Shuffle != nil {
				io.Out = e.Shuffle
			}
			if e.To == v && e.Shuffle != nil {
				io.In = e.Shuffle
			}
		}
		return io
	}
	return nil
}

// validateStream checks the stream settings of vertices and edges: what
// the worker cannot do is refused here, naming the field.
func (s *Spec) validateStream() error {
	in, out := map[string][]int{}, map[string][]int{}
	for i, e := range s.Edges {
		in[e.To] = append(in[e.To], i)
		out[e.From] = append(out[e.From], i)
	}
	stream := map[string]bool{}
	for i, v := range s.Vertices {
		if v.Stream == nil {
			continue
		}
		stream[v.Name] = true
		f := fmt.Sprintf("vertices[%d].stream", i)
		if err := v.Stream.validate(f); err != nil {
			return err
		}
		if len(out[v.Name]) > 1 {
			return fieldErr(f, "a stream vertex writes its stdout to one place: want at most one outgoing edge, not %d", len(out[v.Name]))
		}
		if len(in[v.Name]) > 1 {
			return fieldErr(f, "a stream vertex reads one merged stream on stdin: want at most one incoming edge, not %d", len(in[v.Name]))
		}
		if len(in[v.Name]) == 1 && len(v.Inputs) > 0 {
			return fieldErr(f, "a stream vertex reads either its inputs or its incoming edge on stdin, not both")
		}
	}
	for i, e := range s.Edges {
		f := fmt.Sprintf("edges[%d]", i)
		if e.Shuffle == nil {
			if stream[e.From] || stream[e.To] {
				return fieldErr(f+".shuffle", "edge %s -> %s joins a stream vertex: want a shuffle (e.g. shuffle: {})", e.From, e.To)
			}
			continue
		}
		if e.Type != ScatterGather {
			return fieldErr(f+".type", "a shuffle edge is scatter-gather, not %s", e.Type)
		}
		if !stream[e.From] || !stream[e.To] {
			return fieldErr(f+".shuffle", "edge %s -> %s: a shuffle joins two stream vertices (give both a stream: block)", e.From, e.To)
		}
		if err := e.Shuffle.validate(f + ".shuffle"); err != nil {
			return err
		}
	}
	return nil
}

func (st *StreamSpec) validate(f string) error {
	switch st.InputFormat {
	case "", FormatText, FormatKeyValue:
	default:
		return fieldErr(f+".inputFormat", "%q: want text or keyvalue", st.InputFormat)
	}
	if st.KeyFields < 0 {
		return fieldErr(f+".keyFields", "%d: want 1 or more (0: 1)", st.KeyFields)
	}
	if st.SortBufferMB < 0 {
		return fieldErr(f+".sortBufferMB", "%d: want a number of MB, or 0 for a quarter of memoryMB", st.SortBufferMB)
	}
	return nil
}

func (sh *ShuffleSpec) validate(f string) error {
	switch sh.Partitioner {
	case "", PartitionHash:
		if sh.PartitionerOptions != "" {
			return fieldErr(f+".partitionerOptions", "%q: options are for partitioner: keyfield", sh.PartitionerOptions)
		}
	case PartitionKeyField:
	default:
		return fieldErr(f+".partitioner", "%q: want hash or keyfield", sh.Partitioner)
	}
	for _, o := range []struct{ field, v string }{{"partitionerOptions", sh.PartitionerOptions}, {"sortOptions", sh.SortOptions}} {
		if err := checkKeySpecs(o.v); err != nil {
			return fieldErr(f+"."+o.field, "%v", err)
		}
	}
	if c := sh.Combiner; c != nil {
		if len(c.Command) == 0 {
			return fieldErr(f+".combiner.command", "want a command")
		}
		if c.KeyFields < 0 {
			return fieldErr(f+".combiner.keyFields", "%d: want 1 or more (0: 1)", c.KeyFields)
		}
		if c.MinSpills < 0 {
			return fieldErr(f+".combiner.minSpills", "%d: want 1 or more (0: 3)", c.MinSpills)
		}
	}
	return nil
}

// checkKeySpecs refuses -k specs the worker could not parse; the shuffle
// package parses them for real, this only catches them at submission.
func checkKeySpecs(options string) error {
	words := strings.Fields(options)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-k") {
			continue
		}
		arg := w[2:]
		if arg == "" && i+1 < len(words) {
			i++
			arg = words[i]
		}
		if arg == "" {
			continue
		}
		if !keySpecPattern.MatchString(arg) {
			return fmt.Errorf("invalid -k spec %q: want -k pos1[,pos2] where pos is f[.c][n][r], fields and characters counted from 1", arg)
		}
	}
	return nil
}
