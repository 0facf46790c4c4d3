package trace

import (
	"reflect"
	"testing"
	"time"
)

func TestAlibabaDerived(t *testing.T) {
	jobs, err := Read("testdata/cloudsimpy_small.csv", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(jobs))
	}
	// The earliest task (job 8) was created at 150 s: that is time 0.
	if jobs[0].ID != "j8" || jobs[0].Submit != 0 || jobs[1].ID != "j7" || jobs[1].Submit != 50*time.Second {
		t.Fatalf("jobs %s@%s, %s@%s; want j8@0s, j7@50s", jobs[0].ID, jobs[0].Submit, jobs[1].ID, jobs[1].Submit)
	}
	// 0.001 x 65536 MB = 65.5 MB -> one 128 MB step; 2 cores.
	wantVertex(t, jobs[0].Spec, "t3", 1, 128, 2, 5*time.Second)
	// Job 7's tasks chain in file order; 0.0078125 x 64 GB = 512 MB.
	s := jobs[1].Spec
	wantVertex(t, s, "t1", 4, 512, 1, 10500*time.Millisecond)
	wantVertex(t, s, "t2", 2, 1024, 1, 20*time.Second)
	wantVertex(t, s, "t3", 1, 512, 1, 30*time.Second)
	if got := edgesOf(s); !reflect.DeepEqual(got, []string{"t1->t2:scatter-gather", "t2->t3:scatter-gather"}) {
		t.Errorf("edges %v, want the chain t1->t2->t3", got)
	}
	// A 32 GB node halves the memory: 256 MB, and 0.015625 -> 512 MB.
	jobs, err = Read("testdata/cloudsimpy_small.csv", "", Options{Model: ModelOptions{AlibabaNodeMemoryMB: 32768}})
	if err != nil {
		t.Fatal(err)
	}
	wantVertex(t, jobs[1].Spec, "t2", 2, 512, 1, 20*time.Second)
}

func TestAlibabaRaw(t *testing.T) {
	jobs, err := Read("testdata/batch_task_small.csv", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Job 4 is Waiting (never ran) and is dropped.
	if len(jobs) != 2 || jobs[0].ID != "j3" || jobs[1].ID != "j5" {
		t.Fatalf("got %d jobs %v, want j3, j5", len(jobs), jobs)
	}
	// Origin -100 s: j3 at 0, j5 at 20 - (-100) = 120 s.
	if jobs[0].Submit != 0 || jobs[1].Submit != 120*time.Second {
		t.Errorf("submits %s, %s; want 0s, 2m0s", jobs[0].Submit, jobs[1].Submit)
	}
	// t4: 50 - (-100) = 150 s; t5 ended when created: at least 1 s, and
	// 0.004 x 65536 = 262 MB -> 384 MB.
	wantVertex(t, jobs[0].Spec, "t4", 10, 512, 1, 150*time.Second)
	wantVertex(t, jobs[0].Spec, "t5", 1, 384, 1, time.Second)
	// plan_cpu 200 = 2 cores; 1/32 of 64 GB = 2048 MB.
	wantVertex(t, jobs[1].Spec, "t1", 2, 2048, 2, 60*time.Second)
}

func TestAlibabaErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct{ body, want string }{
		"no column":  {",submit_time,duration,cpu,job_id,task_id,instances_num\n", `header`},
		"bad number": {",submit_time,duration,cpu,memory,job_id,task_id,instances_num,disk\n0,1,x,1,0.1,1,1,1,0\n", `:2: duration: "x": want a number`},
		"mem > 1":    {",submit_time,duration,cpu,memory,job_id,task_id,instances_num,disk\n0,1,1,1,1.5,1,1,1,0\n", `:2: memory: "1.5": want a fraction`},
		"twice":      {",submit_time,duration,cpu,memory,job_id,task_id,instances_num,disk\n0,1,1,1,0.1,1,1,1,0\n1,1,1,1,0.1,1,1,1,0\n", `:3: task_id: "1": job 1 lists this task twice (also line 2)`},
	}
	for name, c := range cases {
		path := writeFile(t, dir, "cloudsimpy_"+name+".csv", c.body)
		_, err := Read(path, "", Options{})
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to contain %q", name, err, c.want)
		}
	}
}
