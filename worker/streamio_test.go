package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/proto/ebbpb"
	"github.com/ebb-am/ebb/shuffle"
)

func streamEnvOf(sio dag.StreamIO) map[string]string {
	return map[string]string{dag.EnvStream: sio.Encode()}
}

// TestStreamVertexShufflesByKey: a map attempt's stdout lines become
// records partitioned by Hadoop's HashPartitioner and sorted by key; the
// reduce attempt gets its partition's records, merged from every producer,
// on stdin, and its stdout becomes its output as TextOutputFormat writes it
// (a value-less line gets its tab).
func TestStreamVertexShufflesByKey(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	in := writeInput(t, "b a\r\nc a\nb\n")
	addr := w.conn.register.GetDataAddress()
	// Two maps over the same input: every word twice.
	for _, id := range []string{"m0", "m1"} {
		m := shellAttempt(id, "d", `tr ' ' '\n' | while read -r w; do printf '%s\t1\n' "$w"; done`)
		m.Vertex = "map"
		m.Splits = []*ebbpb.InputSplit{{Path: in, Offset: 0, Length: 10}}
		m.Outputs = []*ebbpb.OutputSpec{{Consumer: "red", Partitions: 2}}
		m.Env = streamEnvOf(dag.StreamIO{Out: &dag.ShuffleSpec{}})
		w.conn.run(m)
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	}
	commit := filepath.Join(t.TempDir(), "out")
	for p := range 2 {
		id := "r" + string(rune('0'+p))
		r := shellAttempt(id, "d", `cat; echo "no-tab"`)
		r.Vertex, r.TaskIndex, r.CommitDir = "red", int32(p), commit
		for i, m := range []string{"m0", "m1"} {
			r.Inputs = append(r.Inputs, &ebbpb.InputFetch{ProducerVertex: "map", ProducerTask: int32(i), ProducerAttempt: m, Address: addr, Consumer: "red", Partition: int32(p)})
		}
		r.Env = streamEnvOf(dag.StreamIO{In: &dag.ShuffleSpec{}})
		w.conn.run(r)
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	}
	// Hadoop's partitions of the keys among 2: a 0, b 1, c 0 (Text
	// hashCodes 128, 129, 130).
	for k, p := range map[string]int{"a": 0, "b": 1, "c": 0} {
		if got := (shuffle.HashPartitioner{}).Partition([]byte(k), 2); got != p {
			t.Fatalf("partition of %q = %d, want %d", k, got, p)
		}
	}
	want := []string{"a\t1\na\t1\na\t1\na\t1\nc\t1\nc\t1\nno-tab\t\n", "b\t1\nb\t1\nb\t1\nb\t1\nno-tab\t\n"}
	for p, w := range want {
		got, err := os.ReadFile(filepath.Join(commit, "part-0000"+string(rune('0'+p))))
		if err != nil || string(got) != w {
			t.Errorf("part %d = %q, %v; want %q", p, got, err, w)
		}
	}
}

// TestStreamReduceWithoutRecordsWritesNothing: as on Hadoop, what a reduce
// prints when its partition is empty is dropped; its file stays, empty,
// unless lazyOutput.
func TestStreamReduceWithoutRecordsWritesNothing(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	for _, lazy := range []bool{false, true} {
		id := map[bool]string{false: "eager", true: "lazy"}[lazy]
		commit := filepath.Join(t.TempDir(), "out")
		r := shellAttempt(id, "d", `cat; echo printed anyway`)
		r.CommitDir = commit
		r.Env = streamEnvOf(dag.StreamIO{Stream: dag.StreamSpec{LazyOutput: lazy}, In: &dag.ShuffleSpec{}})
		w.conn.run(r)
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
		got, err := os.ReadFile(filepath.Join(commit, "part-00000"))
		switch {
		case lazy && !os.IsNotExist(err):
			t.Errorf("lazy: part-00000 = %q, %v; want none", got, err)
		case !lazy && (err != nil || len(got) != 0):
			t.Errorf("eager: part-00000 = %q, %v; want an empty file", got, err)
		}
	}
}

// TestStreamExitCode: a non-zero exit fails the attempt, unless
// ignoreExitCode (stream.non.zero.exit.is.failure=false) keeps its output.
func TestStreamExitCode(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	in := writeInput(t, "x\n")
	for _, ignore := range []bool{false, true} {
		id := map[bool]string{false: "fails", true: "ignored"}[ignore]
		a, commit := splitAttempt(t, id, `cat; exit 3`, in, 2)
		a.Env = streamEnvOf(dag.StreamIO{Stream: dag.StreamSpec{IgnoreExitCode: ignore}})
		w.conn.run(a)
		if !ignore {
			u := w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_FAILED)
			if u.GetExitCode() != 3 {
				t.Errorf("exit code = %d, want 3", u.GetExitCode())
			}
			continue
		}
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
		if got, err := os.ReadFile(filepath.Join(commit, "part-00000")); err != nil || string(got) != "x\t\n" {
			t.Errorf("ignored exit: part = %q, %v", got, err)
		}
	}
}

// TestStreamKeyValueInputAndFiles: keyvalue input gives "key TAB value"
// lines (a line without a tab gets one); a vertex's files are in the
// task's directory.
func TestStreamKeyValueInputAndFiles(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	prog := filepath.Join(t.TempDir(), "prog.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nsed 's/^/>/'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := writeInput(t, "\xef\xbb\xbfk1 v1\nk2\n")
	a, commit := splitAttempt(t, "kv", `./prog.sh`, in, 12)
	a.Env = streamEnvOf(dag.StreamIO{Stream: dag.StreamSpec{InputFormat: dag.FormatKeyValue, KeyValueSeparator: " ", Files: []string{prog}}})
	w.conn.run(a)
	w.conn.waitUpdate(t, "kv", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	got, err := os.ReadFile(filepath.Join(commit, "part-00000"))
	// The BOM is dropped; ">k1" is the key and "v1" the value.
	if want := ">k1\tv1\n>k2\t\n"; err != nil || string(got) != want {
		t.Errorf("part = %q, %v; want %q", got, err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(w.opts.LogDir, "kv.stdout")); strings.TrimSpace(string(b)) != "" {
		t.Errorf("a stream vertex's stdout is data, yet the log holds %q", b)
	}
}
