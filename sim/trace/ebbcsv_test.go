package trace

import (
	"reflect"
	"testing"
	"time"
)

func TestEbbCSV(t *testing.T) {
	jobs, err := Read("testdata/jobs.csv", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].ID != "J1" || jobs[1].ID != "J2" || jobs[1].Submit != 5500*time.Millisecond {
		t.Fatalf("jobs %+v", jobs)
	}
	s := jobs[0].Spec
	wantVertex(t, s, "map", 4, 1024, 1, 10*time.Second)
	wantVertex(t, s, "reduce", 2, 2048, 1, 30*time.Second)
	wantVertex(t, s, "final", 1, 512, 1, time.Second)
	want := []string{"map->reduce:scatter-gather", "map->final:scatter-gather", "reduce->final:scatter-gather"}
	if got := edgesOf(s); !reflect.DeepEqual(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	wantVertex(t, jobs[1].Spec, "only", 1, 512, 1, 2500*time.Millisecond)
}

func TestEbbCSVErrors(t *testing.T) {
	const h = "job,submit_secs,vertex,tasks,memory_mb,duration_secs,depends_on\n"
	cases := map[string]struct{ body, want string }{
		"header":   {"job,submit,vertex\n", `:1: header: "job,submit,vertex": want job,submit_secs`},
		"tasks":    {h + "J,0,v,0,1,1,\n", `:2: tasks: "0": want a whole number of tasks, at least 1`},
		"memory":   {h + "J,0,v,1,1.5,1,\n", `:2: memory_mb: "1.5"`},
		"depends":  {h + "J,0,a,1,1,1,\nJ,0,b,1,1,1,c\n", `:3: depends_on: "c": not an earlier vertex of job J`},
		"submit":   {h + "J,0,a,1,1,1,\nJ,3,b,1,1,1,a\n", `:3: submit_secs: "3": job J was submitted at 0 s on line 2`},
		"dup":      {h + "J,0,a,1,1,1,\nJ,0,a,1,1,1,\n", `:3: vertex: "a": job J already has this vertex`},
		"columns":  {h + "J,0,a,1,1\n", `:2: "J,0,a,1,1": 5 columns: want 7`},
		"bad name": {h + "J,0,a b,1,1,1,\n", `:2: dag.vertices[0].name: "a b"`},
	}
	dir := t.TempDir()
	for name, c := range cases {
		_, err := Read(writeFile(t, dir, "x.csv", c.body), "ebb-csv", Options{})
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to contain %q", name, err, c.want)
		}
	}
}
