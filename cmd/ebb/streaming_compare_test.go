package main

import (
	"bufio"
	"bytes"
	"cmp"
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
		{name: "existing-output", files: map[string]string{"in.txt": "x\n", "{out}/keep": "old\n"},
			args: []string{"-input", "{d}/in.txt", "-output", "{out}", "-mapper", "cat"}, wantFail: true},
		{name: "missing-input", files: map[string]string{},
			args: []string{"-input", "{d}/nothere.txt", "-output", "{out}", "-mapper", "cat"}, wantFail: true},
	}
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
	if _, err := os.Stat(filepath.Join(ref, "target", "classes", "ebb", "streamingref", "RunJobs.class")); err != nil {
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
	sc := bufio.NewScanner(bytes.NewReader(hout))
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "EXIT "); ok {
			code, _ := strconv.Atoi(n)
			hcodes = append(hcodes, code)
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
