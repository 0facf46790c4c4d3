package scheduler

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rasScenario is the part of ebb's sim scenario format the RAS experiment
// files use, read here only to check that the files are well-formed; the
// sim reads them with its own reader.
type rasScenario struct {
	Name         string   `json:"name"`
	Notes        []string `json:"notes"`
	Nodes        int      `json:"nodes"`
	NodeMemoryMB int64    `json:"nodeMemoryMB"`
	NodeVCores   int      `json:"nodeVCores"`
	Jobs         []struct {
		ID     string `json:"id"`
		Submit string `json:"submit"`
		DAG    struct {
			Name string `json:"name"`
			Goal struct {
				Within string `json:"within"`
			} `json:"goal"`
			Group struct {
				Name           string `json:"name"`
				WorkerMemoryMB int64  `json:"workerMemoryMB"`
			} `json:"containerGroup"`
			Vertices []struct {
				Name           string   `json:"name"`
				Command        string   `json:"command"`
				Parallelism    int      `json:"parallelism"`
				MemoryMB       int64    `json:"memoryMB"`
				Profile        *Profile `json:"profile"`
				ShuffleProfile *Profile `json:"shuffleProfile"`
				ReduceProfile  *Profile `json:"reduceProfile"`
				SimDurations   []string `json:"simDurations"`
			} `json:"vertices"`
			Edges []struct {
				From string `json:"from"`
				To   string `json:"to"`
				Type string `json:"type"`
			} `json:"edges"`
		} `json:"dag"`
	} `json:"jobs"`
}

func readRASScenario(t *testing.T, name string) rasScenario {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "sim", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var s rasScenario
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// The paper's nine jobs: Sort J1/J8/J9, Combine J2/J6/J7, Select J3/J4/J5.
var rasPaperApps = map[string]string{
	"J1": "sort", "J2": "combine", "J3": "select", "J4": "select", "J5": "select",
	"J6": "combine", "J7": "combine", "J8": "sort", "J9": "sort",
}

func TestRASPaperScenarios(t *testing.T) {
	goals := map[string]map[string]time.Duration{}
	for _, file := range []string{"ras-paper-exp1.json", "ras-paper-exp2.json"} {
		s := readRASScenario(t, file)
		goals[file] = map[string]time.Duration{}
		if s.Nodes != 20 || s.NodeMemoryMB <= 0 || s.NodeVCores <= 0 {
			t.Errorf("%s: %d nodes of %d MB, %d vcores; want 20 nodes", file, s.Nodes, s.NodeMemoryMB, s.NodeVCores)
		}
		if len(s.Jobs) != 9 {
			t.Fatalf("%s: %d jobs, want 9", file, len(s.Jobs))
		}
		prevSubmit := time.Duration(-1)
		for _, j := range s.Jobs {
			where := file + " " + j.ID
			app, ok := rasPaperApps[j.ID]
			if !ok || j.DAG.Name != j.ID+"-"+app {
				t.Errorf("%s: DAG %q, want %s-%s", where, j.DAG.Name, j.ID, app)
			}
			submit := mustDuration(t, where+" submit", j.Submit)
			if submit < prevSubmit {
				t.Errorf("%s: submitted at %s, before the job listed above it", where, submit)
			}
			prevSubmit = submit
			goals[file][j.ID] = submit + mustDuration(t, where+" goal", j.DAG.Goal.Within)
			if j.DAG.Group.WorkerMemoryMB != s.NodeMemoryMB {
				t.Errorf("%s: worker of %d MB, want one worker per node (%d MB)", where, j.DAG.Group.WorkerMemoryMB, s.NodeMemoryMB)
			}
			if len(j.DAG.Vertices) != 2 || len(j.DAG.Edges) != 1 {
				t.Fatalf("%s: want map and reduce joined by one edge", where)
			}
			if e := j.DAG.Edges[0]; e.From != "map" || e.To != "reduce" || e.Type != "scatter-gather" {
				t.Errorf("%s: edge %+v, want map -> reduce scatter-gather", where, e)
			}
			for vi, v := range j.DAG.Vertices {
				vw := where + " " + v.Name
				profiles := []*Profile{v.Profile}
				if vi == 1 {
					profiles = []*Profile{v.ShuffleProfile, v.ReduceProfile}
				}
				maxMem := 0.0
				for _, p := range profiles {
					if p == nil {
						t.Fatalf("%s: missing profile", vw)
					}
					if err := p.check(); err != nil {
						t.Errorf("%s: %v", vw, err)
					}
					if p.CPU == 0 && p.IO == 0 {
						t.Errorf("%s: profile %+v uses neither CPU nor I/O", vw, *p)
					}
					maxMem = math.Max(maxMem, p.Memory)
				}
				// memoryMB is the profile's memory share of a node, so the
				// YARN view and the RAS view of a task agree.
				if want := int64(math.Round(maxMem * float64(s.NodeMemoryMB))); v.MemoryMB != want {
					t.Errorf("%s: memoryMB %d, want %d (%g of %d MB)", vw, v.MemoryMB, want, maxMem, s.NodeMemoryMB)
				}
				if v.Parallelism <= 0 || v.Command == "" {
					t.Errorf("%s: parallelism %d command %q", vw, v.Parallelism, v.Command)
				}
				if n := len(v.SimDurations); n != 1 && n != v.Parallelism {
					t.Errorf("%s: %d durations for %d tasks", vw, n, v.Parallelism)
				}
				for _, d := range v.SimDurations {
					if mustDuration(t, vw+" simDurations", d) <= 0 {
						t.Errorf("%s: duration %s", vw, d)
					}
				}
			}
		}
	}
	for id := range rasPaperApps {
		if r, tg := goals["ras-paper-exp1.json"][id], goals["ras-paper-exp2.json"][id]; tg >= r {
			t.Errorf("%s: experiment 2's goal %s is not tighter than experiment 1's %s", id, tg, r)
		}
	}
	// Experiment 2's goals, from the run's start: the paper's where its
	// table is legible, and inside the legible range where it is not
	// (RAS-PAPER.md).
	for id, want := range map[string][2]time.Duration{
		"J1": {3000 * time.Second, 3000 * time.Second}, "J8": {3400 * time.Second, 3400 * time.Second},
		"J9": {4000 * time.Second, 4600 * time.Second},
		"J2": {850 * time.Second, 850 * time.Second}, "J6": {2600 * time.Second, 2600 * time.Second},
		"J7": {6000 * time.Second, 6000 * time.Second},
		"J3": {900 * time.Second, 1300 * time.Second}, "J4": {900 * time.Second, 1300 * time.Second},
		"J5": {900 * time.Second, 1300 * time.Second},
	} {
		if g := goals["ras-paper-exp2.json"][id]; g < want[0] || g > want[1] {
			t.Errorf("%s: experiment 2's goal at %s from the start, want %s to %s", id, g, want[0], want[1])
		}
	}
}

func mustDuration(t *testing.T, what, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return d
}
