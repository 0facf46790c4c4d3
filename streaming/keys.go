package streaming

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ebb-am/ebb/shuffle"
)

// Settings are the job's -D keys as ebb streaming uses them, with
// Hadoop's defaults.
type Settings struct {
	Framework                string // local or yarn
	Reduces                  int    // -1: not set (1)
	Maps                     int    // a hint for split sizes on YARN (2)
	MapOutputSeparator       string
	MapKeyFields             int
	ReduceOutputSeparator    string
	ReduceKeyFields          int
	MapInputSeparator        string
	ReduceInputSeparator     string
	NonZeroExitIsFailure     bool
	IgnoreKey                string // "", "true" or "false" as given
	KeyFieldSeparator        string
	PartitionerOptions       string
	ComparatorOptions        string
	ComparatorClass          string
	PartitionerClass         string
	OutputSeparator          string
	KeyValueSeparator        string
	JobName, Queue           string
	MapMemoryMB, ReduceMemMB int64
	MapAttempts, RedAttempts int
	MinSplitSize             int64
	LocalBlockSize           int64
	DFSBlockSize             int64
	DefaultFS                string
	ReporterPrefix           string
	SortMB                   int64
	CombineMinSpills         int
}

// key is one -D key ebb streaming reads: its names (the current one
// first, then deprecated aliases Hadoop still maps to it), what it is
// for, and how it sets Settings.
type key struct {
	names []string
	doc   string
	set   func(s *Settings, name, v string) error
}

func strKey(field func(*Settings) *string) func(*Settings, string, string) error {
	return func(s *Settings, _, v string) error { *field(s) = v; return nil }
}

func intKey(field func(*Settings) *int, min int) func(*Settings, string, string) error {
	return func(s *Settings, name, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < min {
			return refuse("-D "+name, v, fmt.Sprintf("want a whole number, %d or more", min))
		}
		*field(s) = n
		return nil
	}
}

func int64Key(field func(*Settings) *int64, min int64) func(*Settings, string, string) error {
	return func(s *Settings, name, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < min {
			return refuse("-D "+name, v, fmt.Sprintf("want a whole number, %d or more", min))
		}
		*field(s) = n
		return nil
	}
}

// only takes the one value ebb streaming supports (Hadoop's default).
func only(allowed ...string) func(*Settings, string, string) error {
	return func(_ *Settings, name, v string) error {
		if slices.Contains(allowed, strings.TrimSpace(v)) {
			return nil
		}
		return refuse("-D "+name, v, "want "+strings.Join(allowed, " or ")+": other values are not supported by ebb streaming")
	}
}

const keyFieldComparator = "org.apache.hadoop.mapred.lib.KeyFieldBasedComparator"

// keys is every -D key ebb streaming reads (docs/streaming.md has the
// table).
var keys = []key{
	{[]string{"mapreduce.framework.name"}, "local (default) runs on the local world, yarn on the cluster of HADOOP_CONF_DIR",
		func(s *Settings, name, v string) error {
			if v != "local" && v != "yarn" {
				return refuse("-D "+name, v, "want local or yarn")
			}
			s.Framework = v
			return nil
		}},
	{[]string{"mapreduce.job.reduces", "mapred.reduce.tasks"}, "reducers (1); -numReduceTasks wins", intKey(func(s *Settings) *int { return &s.Reduces }, 0)},
	{[]string{"mapreduce.job.maps", "mapred.map.tasks"}, "on YARN, the number of maps split sizes aim at (2); local mode uses 1, as Hadoop", intKey(func(s *Settings) *int { return &s.Maps }, 1)},
	{[]string{"stream.map.output.field.separator"}, "cuts the mapper's lines into key and value (TAB)", strKey(func(s *Settings) *string { return &s.MapOutputSeparator })},
	{[]string{"stream.num.map.output.key.fields"}, "fields in the map output key (1)", intKey(func(s *Settings) *int { return &s.MapKeyFields }, 0)},
	{[]string{"stream.reduce.output.field.separator"}, "cuts the reducer's and combiner's lines (TAB)", strKey(func(s *Settings) *string { return &s.ReduceOutputSeparator })},
	{[]string{"stream.num.reduce.output.key.fields"}, "fields in the reduce output key (1)", intKey(func(s *Settings) *int { return &s.ReduceKeyFields }, 0)},
	{[]string{"stream.map.input.field.separator"}, "between key and value on the mapper's stdin (KeyValueTextInputFormat) (TAB)", strKey(func(s *Settings) *string { return &s.MapInputSeparator })},
	{[]string{"stream.reduce.input.field.separator"}, "between key and value on the reducer's and combiner's stdin (TAB)", strKey(func(s *Settings) *string { return &s.ReduceInputSeparator })},
	{[]string{"stream.non.zero.exit.is.failure"}, "false: a program's non-zero exit is not a failure (true)",
		func(s *Settings, name, v string) error {
			// Hadoop's getBoolean: true or false in any case.
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				s.NonZeroExitIsFailure = true
			case "false":
				s.NonZeroExitIsFailure = false
			default:
				return refuse("-D "+name, v, "want true or false")
			}
			return nil
		}},
	{[]string{"stream.stderr.reporter.prefix"}, "starts the stderr lines that count (PREFIXcounter:GROUP,NAME,AMOUNT) and set the status (PREFIXstatus:MESSAGE) (reporter:)",
		func(s *Settings, name, v string) error {
			if v == "" {
				return refuse("-D "+name, v, "want a non-empty prefix")
			}
			s.ReporterPrefix = v
			return nil
		}},
	{[]string{"mapreduce.task.io.sort.mb", "io.sort.mb"}, "the map's sort buffer, MB: its output is sorted and spilled in runs of this much (a quarter of the map's memory)",
		int64Key(func(s *Settings) *int64 { return &s.SortMB }, 1)},
	{[]string{"mapreduce.map.combine.minspills", "min.num.spills.for.combine"}, "with a combiner and at least this many spills, a map's final merge runs through the combiner too (3)",
		intKey(func(s *Settings) *int { return &s.CombineMinSpills }, 1)},
	{[]string{"stream.map.input.ignoreKey"}, "true with TextInputFormat, false with KeyValueTextInputFormat (their defaults; the other value is refused)", strKey(func(s *Settings) *string { return &s.IgnoreKey })},
	{[]string{"mapreduce.map.output.key.field.separator", "map.output.key.field.separator"}, "splits keys into fields for -k options (TAB)", strKey(func(s *Settings) *string { return &s.KeyFieldSeparator })},
	{[]string{"mapreduce.partition.keypartitioner.options", "mapred.text.key.partitioner.options"}, "KeyFieldBasedPartitioner's -k options", strKey(func(s *Settings) *string { return &s.PartitionerOptions })},
	{[]string{"mapreduce.partition.keycomparator.options", "mapred.text.key.comparator.options"}, "KeyFieldBasedComparator's -k/-n/-r options", strKey(func(s *Settings) *string { return &s.ComparatorOptions })},
	{[]string{"mapreduce.job.output.key.comparator.class", "mapred.output.key.comparator.class"}, "only " + keyFieldComparator + " (whose options then apply)",
		func(s *Settings, name, v string) error {
			if v != keyFieldComparator && v != "org.apache.hadoop.mapreduce.lib.partition.KeyFieldBasedComparator" {
				return refuse("-D "+name, v, "want "+keyFieldComparator+": other comparators are Java classes ebb cannot run")
			}
			s.ComparatorClass = keyFieldComparator
			return nil
		}},
	{[]string{"mapred.partitioner.class", "mapreduce.job.partitioner.class"}, "as -partitioner (which wins)", strKey(func(s *Settings) *string { return &s.PartitionerClass })},
	{[]string{"mapreduce.output.textoutputformat.separator", "mapred.textoutputformat.separator"}, "between key and value in the output files (TAB)", strKey(func(s *Settings) *string { return &s.OutputSeparator })},
	{[]string{"mapreduce.input.keyvaluelinerecordreader.key.value.separator", "key.value.separator.in.input.line"}, "KeyValueTextInputFormat's key end (its first byte) (TAB)", strKey(func(s *Settings) *string { return &s.KeyValueSeparator })},
	{[]string{"mapreduce.job.name", "mapred.job.name"}, "the DAG's name (streamjob)", strKey(func(s *Settings) *string { return &s.JobName })},
	{[]string{"mapreduce.job.queuename", "mapred.job.queue.name"}, "the YARN queue", strKey(func(s *Settings) *string { return &s.Queue })},
	{[]string{"mapreduce.map.memory.mb", "mapred.job.map.memory.mb"}, "memory per map task, MB (1024; locally 256)", int64Key(func(s *Settings) *int64 { return &s.MapMemoryMB }, 1)},
	{[]string{"mapreduce.reduce.memory.mb", "mapred.job.reduce.memory.mb"}, "memory per reduce task, MB (1024; locally 256)", int64Key(func(s *Settings) *int64 { return &s.ReduceMemMB }, 1)},
	{[]string{"mapreduce.map.maxattempts", "mapred.map.max.attempts"}, "attempts per map task on YARN (4; local mode makes one, as Hadoop)", intKey(func(s *Settings) *int { return &s.MapAttempts }, 1)},
	{[]string{"mapreduce.reduce.maxattempts", "mapred.reduce.max.attempts"}, "attempts per reduce task on YARN (4)", intKey(func(s *Settings) *int { return &s.RedAttempts }, 1)},
	{[]string{"mapreduce.input.fileinputformat.split.minsize", "mapred.min.split.size"}, "the smallest split, bytes (1)", int64Key(func(s *Settings) *int64 { return &s.MinSplitSize }, 0)},
	{[]string{"fs.local.block.size"}, "the block size of local files, for splits (32 MiB)", int64Key(func(s *Settings) *int64 { return &s.LocalBlockSize }, 1)},
	{[]string{"dfs.blocksize", "dfs.block.size"}, "the block size of HDFS files, for splits (128 MiB)", int64Key(func(s *Settings) *int64 { return &s.DFSBlockSize }, 1)},
	{[]string{"fs.defaultFS", "fs.default.name"}, "where relative paths live on YARN", strKey(func(s *Settings) *string { return &s.DefaultFS })},
	{[]string{"mapreduce.fileoutputcommitter.marksuccessfuljobs"}, "true only: _SUCCESS is always written", only("true")},
	{[]string{"mapreduce.input.fileinputformat.input.dir.recursive"}, "false only: input directories are read one level deep", only("false")},
	{[]string{"mapreduce.output.fileoutputformat.compress", "mapred.output.compress"}, "false only: outputs are not compressed", only("false")},
	{[]string{"stream.map.input", "stream.map.output", "stream.reduce.input", "stream.reduce.output"}, "text only (-io text)", only("text")},
}

// ignoredKeys change how Hadoop runs a job, not what it writes: taken and
// without effect on ebb (whose own settings do those jobs).
var ignoredKeys = map[string]bool{
	"mapreduce.task.timeout": true, "mapred.task.timeout": true,
	"mapreduce.job.reduce.slowstart.completedmaps": true,
	"mapreduce.map.java.opts":                      true, "mapreduce.reduce.java.opts": true, "mapred.child.java.opts": true,
	"mapreduce.task.io.sort.factor": true, "io.sort.factor": true,
	"mapreduce.map.speculative": true, "mapreduce.reduce.speculative": true,
	"mapreduce.input.fileinputformat.split.maxsize": true, "mapred.max.split.size": true,
	"mapreduce.job.priority": true, "mapreduce.map.cpu.vcores": true, "mapreduce.reduce.cpu.vcores": true,
	"mapreduce.map.log.level": true, "mapreduce.reduce.log.level": true,
	"mapreduce.map.output.compress": true, "mapreduce.map.output.compress.codec": true,
	"mapreduce.fileoutputcommitter.algorithm.version": true,
	"stream.stderr.reporter.enabled":                  true, "stream.jobconf.truncate.limit": true,
	"mapreduce.job.user.classpath.first": true, "mapreduce.job.ubertask.enable": true,
	"yarn.app.mapreduce.am.resource.mb": true, "mapreduce.reduce.shuffle.parallelcopies": true,
}

// hadoopPrefixes are the name spaces of Hadoop's own keys: one of them
// that ebb streaming does not know is refused, since it may change the
// output. Other keys (a job's own) only reach the tasks' environment.
var hadoopPrefixes = []string{"mapreduce.", "mapred.", "stream.", "dfs.", "fs.", "yarn.", "io.", "hadoop.", "map.", "mmapreduce.", "tez.", "file."}

// byName maps every name and alias to its key.
var byName = func() map[string]*key {
	m := map[string]*key{}
	for i := range keys {
		for _, n := range keys[i].names {
			m[n] = &keys[i]
		}
	}
	return m
}()

// Resolve reads the job's keys into Settings, refusing what ebb cannot do.
// Keys are applied in name order so that a refusal is always the same one.
func Resolve(conf map[string]string) (*Settings, error) {
	s := &Settings{Framework: "local", Reduces: -1, Maps: 2, NonZeroExitIsFailure: true, MinSplitSize: 1,
		LocalBlockSize: 32 << 20, DFSBlockSize: 128 << 20, MapAttempts: 4, RedAttempts: 4}
	for _, name := range slices.Sorted(maps.Keys(conf)) {
		v := conf[name]
		if k := byName[name]; k != nil {
			if err := k.set(s, name, v); err != nil {
				return nil, err
			}
			continue
		}
		if ignoredKeys[name] {
			continue
		}
		for _, p := range hadoopPrefixes {
			if strings.HasPrefix(name, p) {
				return nil, refuse("-D "+name, v, "not supported by ebb streaming: it may change what the job writes (docs/streaming.md lists the keys taken)")
			}
		}
	}
	// A malformed -k spec is refused now, naming it, not when a task runs.
	for _, o := range []struct{ name, v string }{
		{"mapreduce.partition.keypartitioner.options", s.PartitionerOptions},
		{"mapreduce.partition.keycomparator.options", s.ComparatorOptions},
	} {
		if _, err := shuffle.ParseKeyFields(o.v, nil); err != nil {
			return nil, refuse("-D "+o.name, o.v, err.Error())
		}
	}
	return s, nil
}

// EnvName is a job key as Streaming exports it to a task: every character
// that is not a letter or digit becomes '_'.
func EnvName(k string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, k)
}

// KeyTable is the table of keys for docs/streaming.md.
func KeyTable() string {
	var b strings.Builder
	b.WriteString("| key (aliases) | what ebb streaming does with it |\n|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| `%s` | %s |\n", strings.Join(k.names, "`, `"), k.doc)
	}
	return b.String()
}
