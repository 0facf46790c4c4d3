package streaming

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/dag"
)

func noConf(string) (map[string]string, error) { return nil, errors.New("no -conf in this test") }

func parse(t *testing.T, args ...string) (*Job, error) {
	t.Helper()
	return Parse(args, noConf)
}

func TestParseGenericThenStreaming(t *testing.T) {
	j, err := parse(t, "-D", "mapreduce.job.reduces=3", "-Dstream.num.map.output.key.fields=2", "-files", "a.py,b.py#bee",
		"-input", "in1,in{2,3}", "-input", "in4", "-output", "out", "-mapper", "python3 a.py", "-reducer", "NONE",
		"-numReduceTasks", "0", "-cmdenv", "X=1", "-lazyOutput", "-file", "c.sh")
	if err != nil {
		t.Fatal(err)
	}
	if j.Conf["mapreduce.job.reduces"] != "3" || j.Conf["stream.num.map.output.key.fields"] != "2" {
		t.Errorf("conf = %v", j.Conf)
	}
	// Commas split inputs, except inside a {} glob.
	if !slices.Equal(j.Inputs, []string{"in1", "in{2,3}", "in4"}) {
		t.Errorf("inputs = %q", j.Inputs)
	}
	if !slices.Equal(j.Files, []string{"a.py", "b.py#bee", "c.sh"}) || j.NumReduceTasks != 0 || !j.LazyOutput || j.Reducer != "NONE" {
		t.Errorf("job = %+v", j)
	}
}

// TestParseRefusals: each refusal is one line naming the option or key,
// with Streaming's exit code.
func TestParseRefusals(t *testing.T) {
	base := []string{"-input", "in", "-output", "out", "-mapper", "cat"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, ExitFailed, "No Arguments Given!"},
		{[]string{"-output", "out"}, ExitFailed, "Required argument: -input"},
		{[]string{"-input", "in"}, ExitFailed, "Required argument: -output"},
		{append(slices.Clone(base), "-D", "k=v"), ExitFailed, "Unrecognized option: -D"},
		{append(slices.Clone(base), "-bogus"), ExitFailed, "Unrecognized option: -bogus"},
		{append(slices.Clone(base), "stray", "more"), ExitFailed, "Found 2 unexpected arguments on the command line [stray, more]"},
		{append(slices.Clone(base), "-numReduceTasks", "x"), ExitFailed, `-numReduceTasks "x": want a number of reducers`},
		{append(slices.Clone(base), "-io", "typedbytes"), ExitFailed, `-io "typedbytes": want text`},
		{append(slices.Clone(base), "-inputreader", "StreamXmlRecordReader"), ExitFailed, `-inputreader "StreamXmlRecordReader": not supported`},
		{append([]string{"-archives", "a.zip"}, base...), ExitFailed, `-archives "a.zip"`},
		{append(slices.Clone(base), "-background"), ExitFailed, `-background`},
		{append(slices.Clone(base), "-mapper"), ExitFailed, "Missing argument for option: mapper"},
	} {
		_, err := parse(t, c.args...)
		var se *Error
		if !errors.As(err, &se) || se.Code != c.code || !strings.Contains(se.Msg, c.want) || strings.Contains(se.Msg, "\n") {
			t.Errorf("%q: %v, want exit %d and one line with %q", c.args, err, c.code, c.want)
		}
	}
}

func TestResolveKeys(t *testing.T) {
	s, err := Resolve(map[string]string{
		"mapred.reduce.tasks": "4", "stream.map.output.field.separator": ".", "stream.num.map.output.key.fields": "2",
		"mapreduce.partition.keycomparator.options": "-k2,2nr", "stream.non.zero.exit.is.failure": "FALSE",
		"my.own.param": "x", "mapreduce.task.timeout": "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Reduces != 4 || s.MapOutputSeparator != "." || s.MapKeyFields != 2 || s.ComparatorOptions != "-k2,2nr" || s.NonZeroExitIsFailure {
		t.Errorf("settings = %+v", s)
	}
	for _, c := range []struct{ k, v, want string }{
		{"mapreduce.framework.name", "classic", `-D mapreduce.framework.name "classic": want local or yarn`},
		{"mapreduce.job.reduces", "-1", `want a whole number, 0 or more`},
		{"stream.non.zero.exit.is.failure", "yes", `want true or false`},
		{"mapreduce.job.output.key.comparator.class", "com.example.MyComparator", `other comparators are Java classes`},
		{"mapreduce.output.fileoutputformat.compress", "true", `want false`},
		{"mapreduce.map.output.key.field.separatr", "x", `-D mapreduce.map.output.key.field.separatr "x": not supported by ebb streaming`},
		{"stream.map.output", "typedbytes", `want text`},
		{"mapreduce.partition.keycomparator.options", "-k2x,2", `-D mapreduce.partition.keycomparator.options "-k2x,2": invalid -k spec "2x,2"`},
	} {
		_, err := Resolve(map[string]string{c.k: c.v})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-D %s=%s: %v, want %q", c.k, c.v, err, c.want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"python3 mapper.py", []string{"python3", "mapper.py"}},
		{"  cat  ", []string{"cat"}},
		{`awk -F'\t' '{print $2}'`, []string{"awk", "-F", `\t`, "{print $2}"}},
		{`sh -c "tr a b | sort"`, []string{"sh", "-c", "tr a b | sort"}},
		{`grep "it's"`, []string{"grep", "it's"}},
	} {
		if got := SplitArgs(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPlanListsAsHadoop(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x\n", size/2)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("d/b.txt", 10)
	write("d/a.txt", 20)
	write("d/_hidden", 4)
	write("d/.crc", 4)
	write("e/sub/x.txt", 2)
	write("g1.txt", 6)
	write("g2.txt", 8)
	s, _ := Resolve(nil)
	p, err := MakePlan(LocalFS{}, []string{filepath.Join(dir, "d"), filepath.Join(dir, "g*.txt")}, filepath.Join(dir, "out"), s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range p.Files {
		names = append(names, strings.TrimPrefix(f.Path, dir+"/"))
	}
	// A directory's files by name, hidden ones skipped; a glob's matches
	// sorted; one split each (local mode: the goal is the 44-byte total).
	if !slices.Equal(names, []string{"d/a.txt", "d/b.txt", "g1.txt", "g2.txt"}) || p.Splits != 4 || p.SplitSize != 44 {
		t.Errorf("files %q, %d splits of %d", names, p.Splits, p.SplitSize)
	}
	for _, c := range []struct {
		in, out, want string
	}{
		{"nothere", "out", "Input path does not exist: file:" + dir + "/nothere"},
		{"none*.txt", "out", "Input Pattern file:" + dir + "/none*.txt matches 0 files"},
		{"e", "out", "Not a file: file:" + dir + "/e/sub"},
		{"d", "d", "Output directory file:" + dir + "/d already exists"},
	} {
		_, err := MakePlan(LocalFS{}, []string{filepath.Join(dir, c.in)}, filepath.Join(dir, c.out), s)
		var se *Error
		if !errors.As(err, &se) || se.Code != ExitIOError || !strings.Contains(se.Msg, c.want) {
			t.Errorf("input %s output %s: %v, want exit 5 with %q", c.in, c.out, err, c.want)
		}
	}
}

// TestSplitSizeFollowsHadoop: 32 MiB blocks locally, one map's goal; on
// YARN the goal is total / mapreduce.job.maps.
func TestSplitSizeFollowsHadoop(t *testing.T) {
	s, _ := Resolve(nil)
	mb := int64(1 << 20)
	size, n := splitSize([]Entry{{Path: "/a", Size: 70 * mb}}, s)
	if size != 32*mb || n != 3 {
		t.Errorf("70 MiB locally: %d splits of %d, want 3 of 32 MiB (Hadoop made 3)", n, size)
	}
	// 35 MiB: 35/32 < 1.1, so one split.
	if size, n = splitSize([]Entry{{Path: "/a", Size: 35 * mb}}, s); n != 1 {
		t.Errorf("35 MiB: %d splits of %d, want 1", n, size)
	}
	s.Framework, s.Maps = "yarn", 4
	if size, n = splitSize([]Entry{{Path: "hdfs://nn/a", Size: 40 * mb}}, s); size != 10*mb || n != 4 {
		t.Errorf("40 MiB on YARN with 4 maps: %d splits of %d", n, size)
	}
	// The file's own block size bounds the split (not dfs.blocksize).
	if size, n = splitSize([]Entry{{Path: "hdfs://nn/a", Size: 40 * mb, BlockSize: 4 * mb}}, s); size != 4*mb || n != 10 {
		t.Errorf("40 MiB in 4 MiB blocks: %d splits of %d, want 10 of 4 MiB", n, size)
	}
}

func TestBuildMapsJobToDAG(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "reducer.py")
	if err := os.WriteFile(notExec, []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := parse(t, "-D", "mapreduce.job.output.key.comparator.class=org.apache.hadoop.mapred.lib.KeyFieldBasedComparator",
		"-D", "mapreduce.partition.keycomparator.options=-k2,2nr", "-D", "mapreduce.partition.keypartitioner.options=-k1,1",
		"-D", "mapreduce.job.name=my job", "-input", "in", "-output", "out", "-mapper", "cat",
		"-reducer", "wc -l", "-combiner", "uniq", "-partitioner", "org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner", "-numReduceTasks", "3")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(j.Conf)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Build(j, s, &Plan{Files: []Entry{{Path: "/in", Size: 5}}, SplitSize: 5, Splits: 1, Output: "/out"}, BuildOptions{Cwd: dir, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "my_job" || len(spec.Vertices) != 2 || spec.Vertices[1].Parallelism != 3 {
		t.Fatalf("spec = %+v", spec)
	}
	sh := spec.Edges[0].Shuffle
	if sh.Partitioner != dag.PartitionKeyField || sh.PartitionerOptions != "-k1,1" || sh.SortOptions != "-k2,2nr" || sh.Combiner == nil {
		t.Errorf("shuffle = %+v", sh)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-reducer", "org.apache.hadoop.mapred.lib.LongSumReducer"}, `-reducer "org.apache.hadoop.mapred.lib.LongSumReducer": want a command`},
		{[]string{"-inputformat", "SequenceFileInputFormat"}, `-inputformat "SequenceFileInputFormat"`},
		{[]string{"-outputformat", "org.apache.hadoop.mapred.SequenceFileOutputFormat"}, `-outputformat`},
		{[]string{"-partitioner", "com.example.P"}, `-partitioner "com.example.P"`},
		{[]string{"-file", "nothere.py"}, "File: file:" + dir + "/nothere.py does not exist."},
		{[]string{"-reducer", "./nothere.sh"}, `./nothere.sh is not a file here`},
		{[]string{"-reducer", "no-such-program-anywhere --x"}, `no-such-program-anywhere is not on PATH`},
		{[]string{"-reducer", notExec}, notExec + ` is not executable`},
	} {
		j, err := parse(t, append([]string{"-input", "in", "-output", "out", "-mapper", "cat"}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := Resolve(j.Conf)
		_, err = Build(j, s, &Plan{Files: []Entry{{Path: "/in", Size: 5}}, SplitSize: 5, Splits: 1}, BuildOptions{Cwd: dir, Local: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestShippedProgramRunsFromTheTaskDirectory: -file /abs/m.py -mapper
// /abs/m.py runs ./m.py (Streaming's unqualifyIfLocalPath), and a bare
// shipped name runs from the task's directory too.
func TestShippedProgramRunsFromTheTaskDirectory(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "m.py")
	if err := os.WriteFile(prog, []byte("#!/usr/bin/env python3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mapper := range []string{prog, "m.py", "./m.py", "././m.py"} {
		j, err := parse(t, "-file", prog, "-input", "in", "-output", "out", "-mapper", mapper+" --flag", "-numReduceTasks", "0")
		if err != nil {
			t.Fatal(err)
		}
		s, _ := Resolve(j.Conf)
		spec, err := Build(j, s, &Plan{Files: []Entry{{Path: "/in", Size: 5}}, SplitSize: 5, Splits: 1}, BuildOptions{Cwd: dir, Local: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.Vertices[0].Command; !slices.Equal(got, []string{"./m.py", "--flag"}) {
			t.Errorf("-mapper %q runs %q, want ./m.py --flag", mapper, got)
		}
	}
}
