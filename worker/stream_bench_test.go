package worker

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// BenchmarkSplitInputModes runs one map attempt over a local split of
// EBB_BENCH_SPLIT_MB megabytes (default 256) with its split copied first
// (inputMode: file, the behaviour before streaming) and streamed through
// a named pipe, and reports for each:
//
//	first-byte-ms  from sending RunAttempt to the task holding its first
//	               input byte ("read"; for "wc-map", task-start-ms: to the
//	               task's start)
//	attempt-ms     from sending RunAttempt to the SUCCEEDED update
//
// for two tasks: "read" (read one byte, note the time, read the rest: the
// input path alone) and "wc-map" (the built-in word count map, whose
// counting overlaps the streaming). Run it with -benchtime 1x; -count N
// repeats the modes in turn. EBB_BENCH_SPLIT_PATH names an existing input
// instead (a local path or hdfs://namenode/path, read as this user) of
// which the split is the first EBB_BENCH_SPLIT_MB:
//
//	EBB_BENCH_SPLIT_MB=1024 go test ./worker -run XXX -bench SplitInputModes -benchtime 1x -count 2
func BenchmarkSplitInputModes(b *testing.B) {
	mb := int64(256)
	if v := os.Getenv("EBB_BENCH_SPLIT_MB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("EBB_BENCH_SPLIT_MB=%q: want a positive number of MB", v)
		}
		mb = n
	}
	input := os.Getenv("EBB_BENCH_SPLIT_PATH")
	if input == "" {
		input = writeBenchInput(b, mb<<20)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	am := startFakeAM(b, "s")
	w := startWorker(b, am, "w1", func(o *Options) { o.Executable = exe; o.MemoryMB = 4096 })
	tasks := map[string]string{
		// dd reads exactly one byte; date then notes when it came.
		"read":   `{ dd bs=1 count=1 status=none of=/dev/null; date +%s%N > ../../first-$EBB_ATTEMPT_ID; cat > /dev/null; } < input/_splits/0`,
		"wc-map": `date +%s%N > ../../first-$EBB_ATTEMPT_ID; exec "$EBB_TEST_EXE" task wc-map`,
	}
	n := 0
	for _, taskName := range []string{"read", "wc-map"} {
		for _, mode := range []string{"file", "stream"} {
			b.Run(taskName+"/"+mode, func(b *testing.B) {
				for range b.N {
					n++
					id := fmt.Sprintf("bench-%d", n)
					a := shellAttempt(id, "d", tasks[taskName])
					a.MemoryMb = 1024
					a.Env = map[string]string{"EBB_TEST_EXE": exe}
					a.Outputs = []*ebbpb.OutputSpec{{Consumer: "reduce", Partitions: 2}}
					if taskName == "read" {
						a.Outputs = nil
					}
					a.Splits = []*ebbpb.InputSplit{{Path: input, Offset: 0, Length: mb << 20}}
					a.SplitsAsFiles = mode == "file"
					start := time.Now()
					w.conn.run(a)
					w.conn.waitUpdateWithin(b, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED, 10*time.Minute)
					total := time.Since(start)
					first := readNanos(b, filepath.Join(w.opts.WorkDir, "first-"+id))
					metric := "first-byte-ms"
					if taskName == "wc-map" {
						metric = "task-start-ms" // wc-map does not say when its first byte came
					}
					b.ReportMetric(float64(first.Sub(start).Milliseconds()), metric)
					b.ReportMetric(float64(total.Milliseconds()), "attempt-ms")
					// The outputs stay served until DAGDone: free the disk.
					w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_DagDone{DagDone: &ebbpb.DAGDone{DagId: "d"}}})
				}
			})
		}
	}
}

// writeBenchInput writes size bytes of text lines (a deterministic
// vocabulary of some thousands of words) and reads it once, so every run
// finds it in the page cache alike.
func writeBenchInput(b *testing.B, size int64) string {
	p := filepath.Join(b.TempDir(), "input.txt")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var written int64
	for i := 0; written < size; i++ {
		var line strings.Builder
		for j := range 10 {
			fmt.Fprintf(&line, "w%d ", (i*7+j*13)%5000)
		}
		line.WriteString("end\n")
		k, err := bw.WriteString(line.String())
		if err != nil {
			b.Fatal(err)
		}
		written += int64(k)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

func readNanos(b *testing.B, path string) time.Time {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	return time.Unix(0, ns)
}
