package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The comparison of `ebb streaming` with Hadoop Streaming itself
// (org.apache.hadoop:hadoop-streaming:3.4.2 from Maven Central, on Hadoop
// 3.4.1's MapReduce), both in local mode (mapreduce.framework.name=local,
// Hadoop's default): the same command line, the same inputs, and the
// output directories compared file by file. Hadoop's hidden .crc files
// are left out; everything else must be byte-identical, except where a
// case says ties: Hadoop's order among records with equal keys is not
// defined (its quicksort scrambles them), so there the lines of each run
// of equal keys are put in order first.

// streamCase is one job of the table.
type streamCase struct {
	name string
	// files are written into the case's directory first (scripts are
	// made executable).
	files map[string]string
	// args follow `hadoop jar hadoop-streaming.jar` / `ebb streaming`;
	// {d} is the case's directory, {out} the output directory.
	args []string
	// ties: compare after ordering the lines within runs of equal keys
	// (the text before the first tieSep, TAB when empty).
	ties   bool
	tieSep string
	// wantFail: the job fails; the exit codes must agree and neither
	// output may hold _SUCCESS or a part file.
	wantFail bool
	// counters: the job's programs count (reporter:counter: on stderr):
	// ebb's counters must be Hadoop's, less its framework's own, and not
	// none. Every other case must have none on either side.
	counters bool
}

var streamWords = "the quick brown fox\njumps over the lazy dog\nThe dog sleeps; the fox runs.\n\nbrown cows and brown foxes\n"

func streamCases(repo string) []streamCase {
	mapper, reducer := filepath.Join(repo, "examples/streaming/mapper.py"), filepath.Join(repo, "examples/streaming/reducer.py")
	py := func(path string) string { return "python3 " + path }
	return []streamCase{
		{name: "wordcount", files: map[string]string{"in.txt": streamWords},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", py(mapper), "-reducer", py(reducer)}},
		{name: "wordcount-3-reducers", files: map[string]string{"in.txt": strings.Repeat(streamWords, 20)},
			args: []string{"-D", "mapreduce.job.reduces=3", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", py(mapper), "-reducer", py(reducer)}},
		{name: "awk-wordcount-5-reducers", files: map[string]string{"in.txt": strings.Repeat(streamWords, 7)},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-numReduceTasks", "5",
				"-mapper", `awk '{for (i = 1; i <= NF; i++) print $i "\t" 1}'`,
				"-reducer", `awk -F'\t' '{n[$1] += $2} END {for (w in n) print w "\t" n[w]}'`},
			ties: true},
		{name: "combiner", files: map[string]string{"in.txt": strings.Repeat(streamWords, 50)},
			args: []string{"-D", "mapreduce.job.reduces=2", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", py(mapper), "-combiner", py(reducer), "-reducer", py(reducer)}},
		{name: "map-only-files-by-size", files: map[string]string{"in/a.txt": "a1\na2\n", "in/b.txt": "b1\nb2\nb3\nb4\n", "in/c.txt": "c1\n", "in/_skip.txt": "hidden\n"},
			args: []string{"-input", "{d}/in", "-output", "{out}", "-mapper", "cat", "-numReduceTasks", "0"}},
		{name: "reducer-NONE-keyvalue-input", files: map[string]string{"in.txt": "k1\tv1\nno-tab line\nk2\tv2\tmore\n"},
			args: []string{"-inputformat", "org.apache.hadoop.mapred.KeyValueTextInputFormat", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat", "-reducer", "NONE"}},
		{name: "keyfield-partition-numeric-reverse-sort", files: map[string]string{"in.txt": "a\t3\tx\nb\t10\ty\na\t20\tz\nc\t-1\tw\nb\t2\tv\na\t3.5\tu\nc\t007\tt\n"},
			args: []string{"-D", "stream.num.map.output.key.fields=2",
				"-D", "mapreduce.job.output.key.comparator.class=org.apache.hadoop.mapred.lib.KeyFieldBasedComparator",
				"-D", "mapreduce.partition.keycomparator.options=-k1,1 -k2,2nr",
				"-D", "mapreduce.partition.keypartitioner.options=-k1,1",
				"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat", "-reducer", "cat",
				"-partitioner", "org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner", "-numReduceTasks", "2"}},
		{name: "utf8-keys", files: map[string]string{"in.txt": "héllo wörld 日本語 naïve café\nCafé naïve 日本 ÿ\nüber Über straße\n"},
			args: []string{"-D", "mapreduce.job.reduces=3", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", py(mapper), "-reducer", py(reducer)}},
		{name: "cr-lines", files: map[string]string{"in.txt": "a\tb\r\nc\rd\te\r\n\nf\n"},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat", "-reducer", "cat"}, ties: true},
		{name: "empty-input", files: map[string]string{"in.txt": ""},
			args: []string{"-D", "mapreduce.job.reduces=2", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", py(mapper), "-reducer", py(reducer)}},
		{name: "failing-mapper", files: map[string]string{"in.txt": streamWords, "fail.sh": "#!/bin/sh\ncat > /dev/null\nexit 3\n"},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "{d}/fail.sh", "-reducer", "cat"}, wantFail: true},
		{name: "non-zero-exit-not-failure", files: map[string]string{"in.txt": streamWords, "half.sh": "#!/bin/sh\ncat\nexit 3\n"},
			args: []string{"-D", "stream.non.zero.exit.is.failure=false", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", "{d}/half.sh", "-numReduceTasks", "0"}},
		{name: "identity-reducer-ties", files: map[string]string{"in.txt": "k\t1\nj\t2\nk\t3\nj\t4\nk\t5\n"},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat"}, ties: true},
		{name: "separators-and-key-fields", files: map[string]string{"in.txt": "1.2.3.4\n1.2.9\n5.6\n7\n"},
			args: []string{"-D", "stream.map.output.field.separator=.", "-D", "stream.num.map.output.key.fields=2",
				"-D", "mapreduce.output.textoutputformat.separator=,", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat", "-reducer", "cat"},
			ties: true, tieSep: ","},
		{name: "lazy-output", files: map[string]string{"in.txt": "only\n"},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat", "-reducer", "cat", "-numReduceTasks", "4", "-lazyOutput"}},
		{name: "reducer-env-and-cmdenv", files: map[string]string{"in.txt": "a\nb\nc\nd\n", "env.sh": "#!/bin/sh\nwhile read -r l; do echo \"$l $mapreduce_task_partition $GREETING $my_param\"; done\n"},
			args: []string{"-D", "my.param=7", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat", "-reducer", "{d}/env.sh", "-numReduceTasks", "2", "-cmdenv", "GREETING=hi"}},
		{name: "aggregate", files: map[string]string{"in.txt": strings.Repeat(streamWords, 3)},
			args: []string{"-D", "mapreduce.job.reduces=2", "-input", "{d}/in.txt", "-output", "{out}",
				"-mapper", `awk '{for (i = 1; i <= NF; i++) {print "LongValueSum:" $i "\t1"; print "UniqValueCount:len" length($i) "\t" $i; print "DoubleValueSum:tenths\t0.1"; print "LongValueMax:longest\t" length($i)}}'`,
				"-reducer", "aggregate"}},
		{name: "aggregate-histogram", files: map[string]string{"in.txt": strings.Repeat(streamWords, 3) + "a bb a ccc bb a\n"},
			args: []string{"-D", "mapreduce.job.reduces=2", "-input", "{d}/in.txt", "-output", "{out}",
				"-mapper", `awk '{for (i = 1; i <= NF; i++) {print "ValueHistogram:len\t" length($i); print "ValueHistogram:initial\t" substr($i, 1, 1) "\t2"; print "ValueHistogram:word\t" $i}}'`,
				"-reducer", "aggregate"}},
		// Many spills (a 1 MB sort buffer on both sides): the combiner runs
		// over each spill and again over the final merge, so the reducer
		// gets one value per key (it prints how many it got).
		{name: "combiner-over-the-final-merge", files: map[string]string{"in.txt": strings.Repeat(streamWords, 15000), "comb.py": streamMarkingCombiner, "red.py": streamValuesReducer},
			args: []string{"-D", "mapreduce.task.io.sort.mb=1", "-input", "{d}/in.txt", "-output", "{out}",
				"-mapper", `awk '{for (i = 1; i <= NF; i++) print $i "\t" 1}'`, "-combiner", "python3 {d}/comb.py", "-reducer", "python3 {d}/red.py"}},
		// One split per compressed file, read by its suffix's codec:
		// map-only, so each file's part number shows Hadoop's split order
		// (by length, largest first) and that none was cut.
		{name: "compressed-inputs-map-only", files: map[string]string{
			"in/a.txt.gz":  gzipped(strings.Repeat("gzip line\n", 40)) + gzipped("a second member\n"),
			"in/b.bz2":     bzipped(strings.Repeat("bzip2 line\n", 300)),
			"in/c.deflate": zlibbed("deflate one\r\ndeflate two\n"),
			"in/d.txt":     "plain\n",
			"in/e.gz":      gzipped(""),
			"in/f.bz2":     "", // no bytes: no record on Hadoop
		},
			args: []string{"-input", "{d}/in", "-output", "{out}", "-mapper", "cat", "-numReduceTasks", "0"}},
		{name: "compressed-wordcount", files: map[string]string{"in.txt.gz": gzipped(strings.Repeat(streamWords, 30)), "more.bz2": bzipped(streamWords)},
			args: []string{"-D", "mapreduce.job.reduces=2", "-input", "{d}/in.txt.gz", "-input", "{d}/more.bz2", "-output", "{out}", "-mapper", py(mapper), "-reducer", py(reducer)}},
		{name: "compressed-empty-gz-fails", files: map[string]string{"in.gz": ""},
			args: []string{"-input", "{d}/in.gz", "-output", "{out}", "-mapper", "cat"}, wantFail: true},
		{name: "reporter-counters-with-combiner", files: map[string]string{"in.txt": strings.Repeat(streamWords, 4), "count.sh": streamCountingMapper, "sum.py": streamCountingReducer},
			args:     []string{"-D", "mapreduce.job.reduces=2", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", "{d}/count.sh", "-combiner", "python3 {d}/sum.py combine", "-reducer", "python3 {d}/sum.py reduce"},
			counters: true},
		{name: "reporter-prefix-map-only", files: map[string]string{"in.txt": streamWords, "mine.sh": "#!/bin/sh\nwhile read -r l; do echo \"ME:counter:lines,seen,1\" >&2; echo \"reporter:counter:lines,not-mine,1\" >&2; echo \"$l\"; done\necho \"ME:status:done\" >&2\n"},
			args:     []string{"-D", "stream.stderr.reporter.prefix=ME:", "-input", "{d}/in.txt", "-output", "{out}", "-mapper", "{d}/mine.sh", "-numReduceTasks", "0"},
			counters: true},
		{name: "existing-output", files: map[string]string{"in.txt": "x\n", "{out}/keep": "old\n"},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat"}, wantFail: true},
		{name: "missing-input", files: map[string]string{},
			args: []string{"-input", "{d}/nothere.txt", "-output", "{out}", "-mapper", "cat"}, wantFail: true},
	}
}

// streamCountingMapper reports, besides its records, what Streaming's
// stderr protocol allows and what it ignores: a sign, several lines per
// counter, a status, and malformed lines Hadoop only warns about (a missing
// field, a space in the amount, an unknown command).
const streamCountingMapper = `#!/bin/sh
while read -r line; do
  echo "reporter:counter:Words Seen,lines,1" >&2
  echo "reporter:status:read $line" >&2
  for w in $line; do
    echo "$w	1"
    echo "reporter:counter:Words Seen,words,+1" >&2
  done
  echo "not a report" >&2
done
echo "reporter:counter:Words Seen,bad" >&2
echo "reporter:counter:Words Seen,spaced, 5" >&2
echo "reporter:what:ever" >&2
echo "reporter:counter:Words Seen,big,-9000000000" >&2
`

// streamCountingReducer sums counts per word (as a combiner or reducer)
// and counts what it read and wrote under its role's name.
const streamCountingReducer = `import sys
role = sys.argv[1]
last, total, n_in, n_out = None, 0, 0, 0
def emit():
    global n_out
    if last is not None:
        print(f"{last}\t{total}")
        n_out += 1
for line in sys.stdin:
    word, count = line.rstrip("\n").split("\t", 1)
    n_in += 1
    if word != last:
        emit()
        last, total = word, 0
    total += int(count)
emit()
sys.stderr.write(f"reporter:counter:{role},in,{n_in}\nreporter:counter:{role},out,{n_out}\n")
`

// streamMarkingCombiner sums each key's counts, with or without its mark
// C, and marks the sum: what it ran over is told apart from map output.
const streamMarkingCombiner = `import sys
last, total = None, 0
for line in sys.stdin:
    word, count = line.rstrip("\n").split("\t", 1)
    if word != last and last is not None:
        print(f"{last}\tC{total}")
        total = 0
    last = word
    total += int(count.lstrip("C"))
if last is not None:
    print(f"{last}\tC{total}")
`

// streamValuesReducer prints each key's sum and the number of values it
// got: one per map when the combiner ran over the final merge, one per
// spill (or per unmarked record) otherwise.
const streamValuesReducer = `import sys
last, total, n = None, 0, 0
for line in sys.stdin:
    word, count = line.rstrip("\n").split("\t", 1)
    if word != last and last is not None:
        print(f"{last}\t{total}\t{n}")
        total, n = 0, 0
    last = word
    total += int(count.lstrip("C"))
    n += 1
if last is not None:
    print(f"{last}\t{total}\t{n}")
`

// gzipped, zlibbed and bzipped compress s as Hadoop's GzipCodec,
// DefaultCodec (zlib's format) and BZip2Codec write files; bzip2 by
// Python's bz2 (Go has no writer; Python is needed by the cases anyway).
func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

func zlibbed(s string) string {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

func bzipped(s string) string {
	cmd := exec.Command("python3", "-c", "import bz2, sys; sys.stdout.buffer.write(bz2.compress(sys.stdin.buffer.read()))")
	cmd.Stdin = strings.NewReader(s)
	out, err := cmd.Output()
	if err != nil {
		panic(fmt.Sprintf("bzip2 with python3: %v", err))
	}
	return string(out)
}

// hadoopStreaming finds Java, Maven and the reference's class path, or
// skips (fails under CI=true).
func hadoopStreaming(t *testing.T) (java, classpath string) {
	t.Helper()
	miss := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s: the comparison with Hadoop Streaming must run", what)
		}
		t.Skipf("SKIPPING %s: %s", t.Name(), what)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		miss("no java on PATH")
	}
	ref, _ := filepath.Abs("../../streaming/testdata/hadoop")
	cpFile := filepath.Join(ref, "target", "classpath.txt")
	if !upToDate(filepath.Join(ref, "target", "classes", "ebb", "streamingref", "RunJobs.class"), filepath.Join(ref, "src", "main", "java", "ebb", "streamingref", "RunJobs.java")) {
		mvn, err := exec.LookPath("mvn")
		if err != nil {
			miss("no mvn on PATH")
		}
		// Offline first (the cache is warm on a developer's machine and
		// in CI), then online.
		if out, err := exec.Command(mvn, "-o", "-q", "-B", "-f", filepath.Join(ref, "pom.xml"), "compile").CombinedOutput(); err != nil {
			if out2, err := exec.Command(mvn, "-q", "-B", "-f", filepath.Join(ref, "pom.xml"), "compile").CombinedOutput(); err != nil {
				t.Fatalf("building the Hadoop Streaming reference: %v\n%s\n%s", err, out, out2)
			}
		}
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		t.Fatal(err)
	}
	return java, filepath.Join(ref, "target", "classes") + ":" + strings.TrimSpace(string(cp))
}

// upToDate says whether built exists and is no older than source.
func upToDate(built, source string) bool {
	b, err := os.Stat(built)
	if err != nil {
		return false
	}
	s, err := os.Stat(source)
	return err == nil && !b.ModTime().Before(s.ModTime())
}

// hadoopCounters are the counters Hadoop printed for a job ("COUNTER
// group TAB name TAB value"), less the framework's own, as "group/name=value"
// lines.
func hadoopCounters(lines []string) []string {
	var out []string
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 || strings.HasPrefix(f[0], "org.apache.hadoop.") || f[0] == "Shuffle Errors" {
			continue
		}
		out = append(out, f[0]+"/"+f[1]+"="+f[2])
	}
	slices.Sort(out)
	return out
}

// ebbCounters are the counters `ebb streaming` printed after its job, in
// Hadoop's form (a tab, "Counters: N"; two tabs, a group; three tabs,
// name=value), as "group/name=value" lines.
func ebbCounters(log string) []string {
	var out []string
	group := ""
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(l, "\t\t\t"):
			out = append(out, group+"/"+l[3:])
		case strings.HasPrefix(l, "\t\t"):
			group = l[2:]
		}
	}
	slices.Sort(out)
	return out
}

func expand(args []string, dir, out string) []string {
	r := strings.NewReplacer("{d}", dir, "{out}", out)
	res := make([]string, len(args))
	for i, a := range args {
		res[i] = r.Replace(a)
	}
	return res
}

func TestStreamingMatchesHadoopStreaming(t *testing.T) {
	java, cp := hadoopStreaming(t)
	repo, _ := filepath.Abs("../..")
	cases := streamCases(repo)
	root := t.TempDir()
	var jobs bytes.Buffer
	for _, c := range cases {
		dir := filepath.Join(root, c.name)
		for name, content := range c.files {
			for _, out := range []string{"hout", "eout"} {
				p := filepath.Join(dir, strings.ReplaceAll(name, "{out}", out))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		jobs.WriteString(strings.Join(expand(c.args, dir, filepath.Join(dir, "hout")), "\t") + "\n")
	}
	jobsFile := filepath.Join(root, "jobs.txt")
	if err := os.WriteFile(jobsFile, jobs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Hadoop: every case in one JVM, from the root (a local Hadoop's
	// tasks run in the client's directory).
	hcmd := exec.Command(java, "-cp", cp, "ebb.streamingref.RunJobs", jobsFile)
	hcmd.Dir = root
	var hlog bytes.Buffer
	hcmd.Stderr = &hlog
	hout, err := hcmd.Output()
	if err != nil {
		t.Fatalf("Hadoop Streaming: %v\n%s", err, tailBytes(hlog.String(), 3000))
	}
	var hcodes []int
	var hcounters [][]string
	var counted []string
	sc := bufio.NewScanner(bytes.NewReader(hout))
	for sc.Scan() {
		if c, ok := strings.CutPrefix(sc.Text(), "COUNTER "); ok {
			counted = append(counted, c)
		}
		if n, ok := strings.CutPrefix(sc.Text(), "EXIT "); ok {
			code, _ := strconv.Atoi(n)
			hcodes = append(hcodes, code)
			hcounters = append(hcounters, hadoopCounters(counted))
			counted = nil
		}
	}
	if len(hcodes) != len(cases) {
		t.Fatalf("Hadoop ran %d of %d jobs:\n%s\n%s", len(hcodes), len(cases), hout, tailBytes(hlog.String(), 3000))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			cmd, cancel := ebbCommand(append([]string{"streaming"}, expand(c.args, dir, filepath.Join(dir, "eout"))...)...)
			defer cancel()
			cmd.Dir = root
			log, err := cmd.CombinedOutput()
			ecode := 0
			if ee, ok := err.(*exec.ExitError); ok {
				ecode = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if ecode != hcodes[i] {
				t.Errorf("exit code %d, Hadoop Streaming's %d; ebb said:\n%s", ecode, hcodes[i], tailBytes(string(log), 2000))
			}
			if (hcodes[i] != 0) != c.wantFail {
				t.Errorf("Hadoop Streaming exited %d, the case expects failure %v", hcodes[i], c.wantFail)
			}
			compareOutputs(t, filepath.Join(dir, "hout"), filepath.Join(dir, "eout"), c, c.wantFail)
			if e := ebbCounters(string(log)); !slices.Equal(e, hcounters[i]) || c.counters != (len(e) > 0) {
				t.Errorf("counters differ (the case counts: %v):\nHadoop %q\n   ebb %q", c.counters, hcounters[i], e)
			}
			if t.Failed() {
				t.Logf("command: ebb streaming %s\nebb said:\n%s", strings.Join(c.args, " "), tailBytes(string(log), 2000))
			}
		})
	}
}

// compareOutputs compares two output directories' visible files.
func compareOutputs(t *testing.T, hdir, edir string, c streamCase, failed bool) {
	t.Helper()
	hf, ef := visibleFiles(t, hdir), visibleFiles(t, edir)
	if failed {
		for _, fs := range [][]string{hf, ef} {
			for _, f := range fs {
				if f == "_SUCCESS" || strings.HasPrefix(f, "part-") {
					t.Errorf("a failed job left %s", f)
				}
			}
		}
	}
	if !slices.Equal(hf, ef) {
		t.Errorf("files differ: Hadoop %q, ebb %q", hf, ef)
		return
	}
	for _, f := range hf {
		h, _ := os.ReadFile(filepath.Join(hdir, f))
		e, _ := os.ReadFile(filepath.Join(edir, f))
		if c.ties {
			sep := cmp.Or(c.tieSep, "\t")
			h, e = orderTies(h, sep), orderTies(e, sep)
		}
		if !bytes.Equal(h, e) {
			t.Errorf("%s differs:\nHadoop %q\n   ebb %q", f, tailBytes(string(h), 600), tailBytes(string(e), 600))
		}
	}
}

func visibleFiles(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// orderTies sorts the lines within each run of lines with equal keys.
func orderTies(b []byte, sep string) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	key := func(l string) string { k, _, _ := strings.Cut(l, sep); return strings.TrimSuffix(k, "\n") }
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && key(lines[j]) == key(lines[i]) {
			j++
		}
		slices.Sort(lines[i:j])
		i = j
	}
	return []byte(strings.Join(lines, ""))
}

// tailBytes is the last n bytes of s.
func tailBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
