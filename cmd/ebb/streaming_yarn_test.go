package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// TestStreamingOnYARNMatchesHadoopStreaming: the same word count, with its
// Python mapper and reducer shipped by -files and three reducers, run on
// the minicluster by Hadoop Streaming 3.4.2 (mapreduce.framework.name=yarn,
// as a cluster's mapred-site.xml says) and by `ebb streaming` with the same
// arguments; the output directories on HDFS must hold the same files with
// the same bytes. One case only: a MapReduce job on the minicluster takes
// half a minute.
func TestStreamingOnYARNMatchesHadoopStreaming(t *testing.T) {
	java, cp := hadoopStreaming(t)
	y := newYarnTest(t)
	testcluster.Shared(t)
	repo, _ := filepath.Abs("../..")
	if err := y.fs.Client().MkdirAll(y.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat(streamWords, 30)
	if _, err := y.fs.WriteFile(path.Join(y.dir, "in.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same text, gzipped and split in two files, under directories a
	// glob in a middle element picks (and one it must not).
	half := strings.Index(text[len(text)/2:], "\n") + len(text)/2 + 1
	for p, data := range map[string]string{"gz/2024-01/in.gz": gzipped(text[:half]), "gz/2024-02/in.gz": gzipped(text[half:]),
		"gz/2023-12/in.gz": gzipped("not this\n"), "gz/2024-03/in.txt": "nor this\n"} {
		if err := y.fs.Client().MkdirAll(path.Dir(path.Join(y.dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := y.fs.WriteFile(path.Join(y.dir, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(out string) []string {
		return []string{"-D", "mapreduce.framework.name=yarn", "-D", "mapreduce.job.reduces=3",
			"-files", filepath.Join(repo, "examples/streaming/mapper.py") + "," + filepath.Join(repo, "examples/streaming/reducer.py"),
			"-input", y.fs.URL(path.Join(y.dir, "in.txt")), "-output", y.fs.URL(path.Join(y.dir, out)),
			"-mapper", "python3 mapper.py", "-reducer", "python3 reducer.py"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Hadoop Streaming on YARN, with the settings the benchmarks give
	// MapReduce jobs on the minicluster (class path, JAVA_HOME, the Java 17
	// opens, no history server).
	javaHome := filepath.Dir(filepath.Dir(resolveLink(t, java)))
	opens := strings.Join(javaOpens(), " ")
	hargs := append([]string{
		"-D", "mapreduce.application.classpath=" + cp,
		"-D", "net.topology.node.switch.mapping.impl=org.apache.hadoop.net.ScriptBasedMapping",
		"-D", "yarn.app.mapreduce.am.env=JAVA_HOME=" + javaHome,
		"-D", "mapreduce.map.env=JAVA_HOME=" + javaHome,
		"-D", "mapreduce.reduce.env=JAVA_HOME=" + javaHome,
		"-D", "yarn.app.mapreduce.am.command-opts=-Xmx512m " + opens,
		"-D", "yarn.app.mapreduce.am.resource.mb=768",
		"-D", "mapreduce.map.java.opts=" + opens,
		"-D", "mapreduce.reduce.java.opts=" + opens,
		"-D", "mapreduce.jobhistory.address=",
	}, args("hout")...)
	jobs := filepath.Join(t.TempDir(), "jobs.txt")
	if err := os.WriteFile(jobs, []byte(strings.Join(hargs, "\t")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hcmd := exec.CommandContext(ctx, java, append(javaOpens(), "-cp", y.confDir+":"+cp, "ebb.streamingref.RunJobs", jobs)...)
	var hlog bytes.Buffer
	hcmd.Stderr = &hlog
	hout, err := hcmd.Output()
	if err != nil || !strings.Contains(string(hout), "EXIT 0") {
		t.Fatalf("Hadoop Streaming on YARN: %v %s\n%s", err, hout, tailBytes(hlog.String(), 4000))
	}

	y.env = []string{"EBB_MR3_AM_RESOURCE_MEMORY_MB=256", "EBB_MR3_AM_MAX_APP_ATTEMPTS=1"}
	log, err := y.ebb(ctx, append([]string{"streaming"}, args("eout")...)...)
	if err != nil {
		t.Fatalf("ebb streaming on YARN: %v\n%s", err, tailBytes(log, 4000))
	}
	// ebb again, on the gzipped copy through the glob: Hadoop's output again.
	gzArgs := args("eout-gz")
	for i, a := range gzArgs {
		if a == y.fs.URL(path.Join(y.dir, "in.txt")) {
			gzArgs[i] = y.fs.URL(path.Join(y.dir, "gz/2024-*/*.gz"))
		}
	}
	gzLog, err := y.ebb(ctx, append(append([]string{"streaming"}, gzArgs...), "-verbose")...)
	if err != nil {
		t.Fatalf("ebb streaming on YARN over gzipped inputs: %v\n%s", err, tailBytes(gzLog, 4000))
	}
	if !strings.Contains(gzLog, "2024-01/in.gz") || !strings.Contains(gzLog, "2024-02/in.gz") || strings.Contains(gzLog, "2023-12") || strings.Contains(gzLog, "2024-03") {
		t.Errorf("the glob gz/2024-*/*.gz did not pick exactly 2024-01/in.gz and 2024-02/in.gz; the DAG:\n%s", tailBytes(gzLog, 3000))
	}
	hdir, edir, gzdir := t.TempDir(), t.TempDir(), t.TempDir()
	fetch := func(out, local string) []string {
		entries, err := y.fs.List(path.Join(y.dir, out))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name, ".") {
				continue
			}
			names = append(names, e.Name)
			data, err := y.fs.ReadFile(path.Join(y.dir, out, e.Name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(local, e.Name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return names
	}
	hnames, enames := fetch("hout", hdir), fetch("eout", edir)
	if len(hnames) != 4 {
		t.Errorf("Hadoop wrote %q, want three parts and _SUCCESS", hnames)
	}
	compareOutputs(t, hdir, edir, streamCase{}, false)
	fetch("eout-gz", gzdir)
	compareOutputs(t, hdir, gzdir, streamCase{}, false)
	if t.Failed() {
		t.Logf("ebb streaming said:\n%s\nfiles: Hadoop %q, ebb %q", tailBytes(log, 3000), hnames, enames)
	}
}

func resolveLink(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// javaOpens are the --add-opens Hadoop 3.4 needs on Java 17
// (scripts/bench/lib.sh has the same list).
func javaOpens() []string {
	var out []string
	for _, p := range []string{"java.base/java.lang", "java.base/java.lang.reflect", "java.base/java.io", "java.base/java.net",
		"java.base/java.nio", "java.base/java.util", "java.base/java.util.concurrent",
		"java.base/java.util.concurrent.atomic", "java.base/sun.nio.ch", "java.base/sun.net.util"} {
		out = append(out, "--add-opens="+p+"=ALL-UNNAMED")
	}
	return out
}
