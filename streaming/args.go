package streaming

import (
	"strconv"
	"strings"
)

// Job is a parsed Streaming command line.
type Job struct {
	// Conf holds the -D (and -jobconf, -conf) keys, later ones winning.
	Conf map[string]string
	// Files are -files entries and -file paths: shipped to the tasks'
	// working directories.
	Files []string
	// Framework is -jt's value when given ("local" or an address).
	JobTracker string

	Inputs       []string
	Output       string
	Mapper       string
	Combiner     string
	Reducer      string
	InputFormat  string
	OutputFormat string
	Partitioner  string
	// NumReduceTasks is -numReduceTasks, -1 when not given.
	NumReduceTasks int
	CmdEnv         []string
	LazyOutput     bool
	Verbose        bool
	Help           bool
}

// Usage is what -help prints (on stdout, exit 0).
const Usage = `Usage: ebb streaming [genericOptions] [streamingOptions]
Generic options (before the streaming options):
  -D <property=value>   a job setting (docs/streaming.md lists those taken)
  -conf <file>          a Hadoop configuration XML file of job settings
  -files <a,b,...>      files to put in the tasks' working directories
  -jt local             run on the local world (mapreduce.framework.name=local)
Streaming options:
  -input <path>         input file, directory or glob (repeatable; comma-separated)
  -output <path>        output directory (must not exist)
  -mapper <cmd>         the mapper command
  -combiner <cmd>       the combiner command
  -reducer <cmd>        the reducer command, NONE (map-only) or aggregate
  -file <file>          a file to put in the tasks' working directories (repeatable)
  -inputformat <class>  TextInputFormat (default) or KeyValueTextInputFormat
  -outputformat <class> TextOutputFormat
  -partitioner <class>  HashPartitioner (default) or KeyFieldBasedPartitioner
  -numReduceTasks <n>   the number of reducers (0: map-only)
  -cmdenv <n>=<v>       an environment variable for the tasks (repeatable)
  -lazyOutput           create part files only for tasks that write records
  -verbose              print the job's DAG and more
  -help                 this text
Exit codes: 0 success, 1 bad arguments or job failed, 2 file not found,
5 output exists or input missing (Streaming's).
`

// genericWithValue are GenericOptionsParser's options that take a value.
var genericWithValue = map[string]bool{
	"-D": true, "-conf": true, "-fs": true, "-jt": true, "-files": true,
	"-libjars": true, "-archives": true, "-tokenCacheFile": true,
}

// streamingWithValue are StreamJob's options that take a value; the
// values are what ebb does with them.
var streamingWithValue = map[string]bool{
	"-input": true, "-output": true, "-mapper": true, "-combiner": true, "-reducer": true,
	"-file": true, "-inputformat": true, "-outputformat": true, "-partitioner": true,
	"-numReduceTasks": true, "-inputreader": true, "-cmdenv": true, "-mapdebug": true,
	"-reducedebug": true, "-io": true, "-jobconf": true, "-dfs": true, "-cacheFile": true,
	"-cacheArchive": true, "-additionalconfspec": true,
}

var streamingFlags = map[string]bool{
	"-lazyOutput": true, "-background": true, "-verbose": true, "-info": true, "-help": true, "-debug": true,
}

// Parse reads the arguments that follow `hadoop jar hadoop-streaming.jar`:
// generic options first (parsing them stops at the first other token, as
// GenericOptionsParser's does, so a -D after a streaming option is an
// unknown option there), then streaming options. readConf reads a -conf
// file's properties.
func Parse(args []string, readConf func(path string) (map[string]string, error)) (*Job, error) {
	j := &Job{Conf: map[string]string{}, NumReduceTasks: -1}
	if len(args) == 0 {
		return nil, errorf(ExitFailed, "No Arguments Given!")
	}
	i, err := j.parseGeneric(args, readConf)
	if err != nil {
		return nil, err
	}
	if err := j.parseStreaming(args[i:]); err != nil {
		return nil, err
	}
	if j.Help {
		return j, nil
	}
	if len(j.Inputs) == 0 {
		return nil, errorf(ExitFailed, "Required argument: -input <name> (Try -help for more information)")
	}
	if j.Output == "" {
		return nil, errorf(ExitFailed, "Required argument: -output <name> (Try -help for more information)")
	}
	return j, nil
}

func (j *Job) parseGeneric(args []string, readConf func(string) (map[string]string, error)) (int, error) {
	i := 0
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, "-D") && len(a) > 2 {
			j.setKV(a[2:])
			i++
			continue
		}
		if !genericWithValue[a] {
			return i, nil
		}
		if i+1 >= len(args) {
			return 0, errorf(ExitFailed, "option %s: missing its value", a)
		}
		v := args[i+1]
		i += 2
		switch a {
		case "-D":
			j.setKV(v)
		case "-conf":
			props, err := readConf(v)
			if err != nil {
				return 0, errorf(ExitFailed, "-conf %q: %v", v, err)
			}
			for k, x := range props {
				j.Conf[k] = x
			}
		case "-files":
			j.Files = append(j.Files, strings.Split(v, ",")...)
		case "-jt":
			j.JobTracker = v
		case "-fs":
			if v != "local" && !strings.HasPrefix(v, "file:") && !strings.HasPrefix(v, "hdfs://") {
				return 0, refuse("-fs", v, "want local, file:/// or an hdfs:// URI")
			}
			j.Conf["fs.defaultFS"] = map[bool]string{true: "file:///", false: v}[v == "local"]
		case "-libjars", "-tokenCacheFile":
			return 0, refuse(a, v, "Java jars and token files are not for streaming programs on ebb; leave it out")
		case "-archives":
			return 0, refuse(a, v, "archives are not unpacked for tasks by ebb streaming; ship the files with -files")
		}
	}
	return i, nil
}

// setKV sets a -D k=v; an entry with no '=' is ignored, as Hadoop ignores it.
func (j *Job) setKV(kv string) {
	k, v, ok := strings.Cut(kv, "=")
	if ok {
		j.Conf[strings.TrimSpace(k)] = v
	}
}

func (j *Job) parseStreaming(args []string) error {
	var stray []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if streamingFlags[a] {
			switch a {
			case "-lazyOutput":
				j.LazyOutput = true
			case "-verbose", "-debug":
				j.Verbose = true
			case "-info", "-help":
				j.Help = true
			case "-background":
				return refuse(a, "", "ebb streaming follows the job to its end; submit a DAG with `ebb submit --detach` to return at once")
			}
			continue
		}
		if !streamingWithValue[a] {
			if strings.HasPrefix(a, "-") {
				return errorf(ExitFailed, "Unrecognized option: %s (Try -help for more information; generic options such as -D go before the streaming options)", a)
			}
			stray = append(stray, a)
			continue
		}
		if i+1 >= len(args) {
			return errorf(ExitFailed, "Missing argument for option: %s", a[1:])
		}
		v := args[i+1]
		i++
		if err := j.setOption(a, v); err != nil {
			return err
		}
	}
	if len(stray) > 0 {
		return errorf(ExitFailed, "Found %d unexpected arguments on the command line [%s]", len(stray), strings.Join(stray, ", "))
	}
	return nil
}

func (j *Job) setOption(a, v string) error {
	switch a {
	case "-input":
		j.Inputs = append(j.Inputs, splitOutsideBraces(v)...)
	case "-output":
		j.Output = v
	case "-mapper":
		j.Mapper = v
	case "-combiner":
		j.Combiner = v
	case "-reducer":
		j.Reducer = v
	case "-file":
		j.Files = append(j.Files, v)
	case "-inputformat":
		j.InputFormat = v
	case "-outputformat":
		j.OutputFormat = v
	case "-partitioner":
		j.Partitioner = v
	case "-numReduceTasks":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return refuse("-numReduceTasks", v, "want a number of reducers, 0 or more")
		}
		j.NumReduceTasks = n
	case "-cmdenv":
		j.CmdEnv = append(j.CmdEnv, v)
	case "-jobconf":
		j.setKV(v)
	case "-dfs":
		j.Conf["fs.defaultFS"] = v
	case "-io":
		if v != "text" {
			return refuse("-io", v, "want text: rawbytes, typedbytes and keyonlytext are not supported")
		}
	default: // -inputreader, -mapdebug, -reducedebug, -cacheFile, -cacheArchive, -additionalconfspec
		return refuse(a, v, "not supported by ebb streaming (docs/streaming.md lists the options taken)")
	}
	return nil
}

// splitOutsideBraces splits an -input value at commas that are not inside
// a {a,b} glob, as StreamJob does.
func splitOutsideBraces(v string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range v {
		switch c {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, v[start:i])
				start = i + 1
			}
		}
	}
	return append(out, v[start:])
}
