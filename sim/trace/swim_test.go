package trace

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSWIMModel(t *testing.T) {
	jobs, err := Read("testdata/swim_small.tsv", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 {
		t.Fatalf("%d jobs, want 3", len(jobs))
	}
	// job0: 256 MB in -> 2 maps of 2 s + 128 MB / 50 MB/s = 4.56 s; map only.
	j := jobs[0]
	if j.ID != "job0" || j.Submit != 10*time.Second || j.Spec.Name != "job0" {
		t.Errorf("job0 = %s at %s (spec %s)", j.ID, j.Submit, j.Spec.Name)
	}
	wantVertex(t, j.Spec, "map", 2, 1024, 1, ms(4560))
	if len(j.Spec.Vertices) != 1 || len(j.Spec.Edges) != 0 {
		t.Errorf("job0 should be map-only, got %d vertices, edges %v", len(j.Spec.Vertices), edgesOf(j.Spec))
	}
	// job1: 100 B in -> 1 map of 2 s (+2 us, rounded away); 3 GB shuffle ->
	// 3 reduces of 4 s + 1024 MB / 20 MB/s = 55.2 s.
	j = jobs[1]
	wantVertex(t, j.Spec, "map", 1, 1024, 1, 2*time.Second)
	wantVertex(t, j.Spec, "reduce", 3, 2048, 1, ms(55200))
	if got := edgesOf(j.Spec); !reflect.DeepEqual(got, []string{"map->reduce:scatter-gather"}) {
		t.Errorf("job1 edges %v", got)
	}
	// job2: nothing read -> still one map, of the base time.
	wantVertex(t, jobs[2].Spec, "map", 1, 1024, 1, 2*time.Second)
	if g := jobs[2].Spec.Group; g.Name != "sim" || g.WorkerMemoryMB != 16384 {
		t.Errorf("group %+v, want sim with 16384 MB workers", g)
	}
}

func TestSWIMModelOptions(t *testing.T) {
	m := ModelOptions{SplitMB: 64, MapMBPerSec: 100, MapBase: time.Second, MapMemoryMB: 512, ReduceInputMB: 2048, ReduceMBPerSec: 64, ReduceBase: 3 * time.Second}
	jobs, err := Read("testdata/swim_small.tsv", "swim", Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	// 256 MB / 64 MB = 4 maps of 1 s + 64/100 s = 1.64 s.
	wantVertex(t, jobs[0].Spec, "map", 4, 512, 1, ms(1640))
	// 3 GB / 2 GB = 2 reduces of 3 s + 1536/64 s = 27 s.
	wantVertex(t, jobs[1].Spec, "reduce", 2, 2048, 1, 27*time.Second)
}

func TestBiggerWorkersGetTheirOwnGroup(t *testing.T) {
	jobs, err := Read("testdata/swim_small.tsv", "", Options{Model: ModelOptions{WorkerMemoryMB: 1024}})
	if err != nil {
		t.Fatal(err)
	}
	// job0 is map-only (1024 MB tasks): the configured group. job1's
	// 2048 MB reduces need bigger workers, under another name.
	if g := jobs[0].Spec.Group; g.Name != "sim" || g.WorkerMemoryMB != 1024 {
		t.Errorf("job0 group %+v, want sim/1024", g)
	}
	if g := jobs[1].Spec.Group; g.Name != "sim-2048mb" || g.WorkerMemoryMB != 2048 {
		t.Errorf("job1 group %+v, want sim-2048mb/2048", g)
	}
}

func TestCapKeepsTaskTime(t *testing.T) {
	// 30 maps of 4.56 s and 10 reduces of 55.2 s, capped at 10 tasks:
	// maps 30*10/40 = 7 of 4.56*30/7 = 19.543 s; reduces 10*10/40 = 2 of
	// 55.2*10/2 = 276 s.
	m, _ := ModelOptions{MaxTasksPerJob: 10}.withDefaults()
	st := swimStages(30*128*mb, 10*1024*mb, m)
	wantTasks := []int{30, 10}
	for i, s := range st {
		if s.tasks != wantTasks[i] {
			t.Fatalf("stage %s: %d tasks before the cap, want %d", s.name, s.tasks, wantTasks[i])
		}
	}
	capTasks(st, m.MaxTasksPerJob)
	if st[0].tasks != 7 || st[0].durations[0] != ms(19543) {
		t.Errorf("maps %d x %s, want 7 x 19.543s", st[0].tasks, st[0].durations[0])
	}
	if st[1].tasks != 2 || st[1].durations[0] != 276*time.Second {
		t.Errorf("reduces %d x %s, want 2 x 4m36s", st[1].tasks, st[1].durations[0])
	}
	// Per-task durations fold: 5 tasks into 2 -> {1+3+5, 2+4}.
	per := []stage{{name: "s", tasks: 5, durations: []time.Duration{1, 2, 3, 4, 5}}}
	capTasks(per, 2)
	if per[0].tasks != 2 || !reflect.DeepEqual(per[0].durations, []time.Duration{9, 6}) {
		t.Errorf("folded %d tasks %v, want 2 tasks [9 6]", per[0].tasks, per[0].durations)
	}
	// Under the cap nothing changes.
	same := []stage{{name: "s", tasks: 3, durations: []time.Duration{7}}}
	capTasks(same, 3)
	if same[0].tasks != 3 || same[0].durations[0] != 7 {
		t.Errorf("uncapped stage changed: %+v", same[0])
	}
}

func TestWindowAndScale(t *testing.T) {
	// Submits 10, 25, 40 s; window [20 s, 40 s) keeps job1 at 25-20 = 5 s,
	// scale 2 makes it 10 s.
	jobs, err := Read("testdata/swim_small.tsv", "", Options{WindowStart: 20 * time.Second, WindowLength: 20 * time.Second, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != "job1" || jobs[0].Submit != 10*time.Second {
		t.Fatalf("got %+v, want job1 at 10s", jobs)
	}
	// Open-ended window from 20 s, scale 0.5: job1 at 2.5 s, job2 at 10 s.
	jobs, err = Read("testdata/swim_small.tsv", "", Options{WindowStart: 20 * time.Second, Scale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Submit != 2500*time.Millisecond || jobs[1].Submit != 10*time.Second {
		t.Fatalf("got %d jobs %v", len(jobs), jobs)
	}
}

func TestSWIMErrors(t *testing.T) {
	_, err := Read("testdata/swim_bad.tsv", "", Options{})
	var te *Error
	if !errors.As(err, &te) || !errors.Is(err, ErrFormat) {
		t.Fatalf("err %v: want a *trace.Error wrapping ErrFormat", err)
	}
	if te.Line != 2 || !strings.Contains(te.Field, "map input bytes") || te.Value != "-3" {
		t.Errorf("err %q: want line 2, field map input bytes, value -3", err)
	}
	for _, o := range []Options{{Scale: -1}, {WindowLength: -time.Second}, {Model: ModelOptions{MapMBPerSec: -5}}, {Model: ModelOptions{MaxTasksPerJob: -1}}} {
		if _, err := Read("testdata/swim_small.tsv", "", o); !errors.Is(err, ErrFormat) {
			t.Errorf("options %+v: err %v, want ErrFormat", o, err)
		}
	}
	if _, err := Read("testdata/nope.tsv", "", Options{}); err == nil || errors.Is(err, ErrFormat) {
		t.Errorf("missing file: err %v, want a file error, not ErrFormat", err)
	}
	if _, err := Read("testdata/swim_small.tsv", "parquet", Options{}); err == nil || !strings.Contains(err.Error(), "swim, alibaba") {
		t.Errorf("unknown format: err %v, want the list of formats", err)
	}
}

func TestDetect(t *testing.T) {
	for path, want := range map[string]string{
		"x/FB-2009_0.tsv":           "swim",
		"cloudsimpy_jobs_v2017.csv": "alibaba",
		"batch_task_v2017.csv":      "alibaba-raw",
		"tpch_dags_full.json.gz":    "decima",
		"tpch_stage_summary.csv":    "decima-csv",
		"my-scenario.json":          "ebb-json",
		"jobs.csv":                  "ebb-csv",
	} {
		if got, err := Detect(path); got != want || err != nil {
			t.Errorf("Detect(%s) = %s, %v; want %s", path, got, err, want)
		}
	}
	if _, err := Detect("trace.parquet"); !errors.Is(err, ErrFormat) {
		t.Errorf("Detect(trace.parquet) err %v, want ErrFormat", err)
	}
}
