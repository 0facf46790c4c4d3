package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// TestWordCountWithBuiltinTasks runs a two-stage word count on two workers:
// two wc-map tasks over two splits of one file (cut mid-line), two
// wc-reduce tasks fetching their partition from both maps and committing.
func TestWordCountWithBuiltinTasks(t *testing.T) {
	text := "apple banana apple\ncherry banana\napple date\nelder fig fig\n"
	input := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(input, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	am := startFakeAM(t, "s")
	ebbTest := func(o *Options) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		o.Executable = exe
	}
	w1 := startWorker(t, am, "w1", ebbTest)
	w2 := startWorker(t, am, "w2", ebbTest)
	cut := int64(len(text) / 2) // falls inside a line
	splits := [][2]int64{{0, cut}, {cut, int64(len(text)) - cut}}
	for i, w := range []*workerRun{w1, w2} {
		id := fmt.Sprintf("map-%d", i)
		w.conn.run(&ebbpb.RunAttempt{
			AttemptId: id, DagId: "d", Vertex: "map", TaskIndex: int32(i), Parallelism: 2, MemoryMb: 64,
			Command: []string{"ebb", "task", "wc-map"},
			Outputs: []*ebbpb.OutputSpec{{Consumer: "reduce", Partitions: 2}},
			Splits:  []*ebbpb.InputSplit{{Path: input, Offset: splits[i][0], Length: splits[i][1]}},
		})
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	}
	result := filepath.Join(t.TempDir(), "result")
	for r, w := range []*workerRun{w2, w1} {
		id := fmt.Sprintf("reduce-%d", r)
		var ins []*ebbpb.InputFetch
		for m, holder := range []*workerRun{w1, w2} {
			ins = append(ins, &ebbpb.InputFetch{
				ProducerVertex: "map", ProducerTask: int32(m), ProducerAttempt: fmt.Sprintf("map-%d", m),
				Address: holder.conn.register.GetDataAddress(), Consumer: "reduce", Partition: int32(r),
			})
		}
		w.conn.run(&ebbpb.RunAttempt{
			AttemptId: id, DagId: "d", Vertex: "reduce", TaskIndex: int32(r), Parallelism: 2, MemoryMb: 64,
			Command: []string{"ebb", "task", "wc-reduce"}, Inputs: ins, CommitDir: result,
		})
		w.conn.waitUpdate(t, id, ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	}
	var got []string
	for r := range 2 {
		b, err := os.ReadFile(filepath.Join(result, fmt.Sprintf("part-%05d", r)))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Fields(string(b))...)
	}
	counts := map[string]string{}
	for i := 0; i+1 < len(got); i += 2 {
		counts[got[i]] = got[i+1]
	}
	want := map[string]string{"apple": "3", "banana": "2", "cherry": "1", "date": "1", "elder": "1", "fig": "2"}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("word counts = %v, want %v", counts, want)
	}
}
