package scheduler

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func props(name string, mb int64, vcores int) GroupProps {
	return GroupProps{Name: name, WorkerMemoryMB: mb, WorkerVCores: vcores}
}

func TestGroupPropsDiff(t *testing.T) {
	base := GroupProps{Name: "etl", WorkerMemoryMB: 4096, WorkerVCores: 1, Env: map[string]string{"A": "1"}, MaxWorkers: 10}
	tests := []struct {
		name string
		edit func(*GroupProps)
		want []string
	}{
		{"identical", func(*GroupProps) {}, nil},
		{"memory", func(p *GroupProps) { p.WorkerMemoryMB = 8192 }, []string{"workerMemoryMB"}},
		{"vcores", func(p *GroupProps) { p.WorkerVCores = 2 }, []string{"workerVCores"}},
		{"env value", func(p *GroupProps) { p.Env = map[string]string{"A": "2"} }, []string{"env"}},
		{"env key added", func(p *GroupProps) { p.Env = map[string]string{"A": "1", "B": "1"} }, []string{"env"}},
		{"max workers", func(p *GroupProps) { p.MaxWorkers = 0 }, []string{"maxWorkers"}},
		{"several, in fixed order", func(p *GroupProps) { p.MaxWorkers, p.WorkerMemoryMB, p.Name = 1, 1, "x" },
			[]string{"name", "workerMemoryMB", "maxWorkers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base
			q.Env = map[string]string{"A": "1"} // a distinct but equal map
			tt.edit(&q)
			if got := base.Diff(q); !slices.Equal(got, tt.want) {
				t.Errorf("Diff = %v, want %v", got, tt.want)
			}
		})
	}
	// nil and empty environments are the same environment.
	a, b := props("g", 1, 1), props("g", 1, 1)
	b.Env = map[string]string{}
	if d := a.Diff(b); d != nil {
		t.Errorf("nil vs empty env: Diff = %v", d)
	}
}

func TestMergeGroup(t *testing.T) {
	etl := GroupProps{Name: "etl", WorkerMemoryMB: 4096, WorkerVCores: 1, Env: map[string]string{"LANG": "C"}}

	// Same name, identical properties (an equal, distinct env map): one
	// shared group.
	same := etl
	same.Env = map[string]string{"LANG": "C"}
	if err := MergeGroup(etl, same); err != nil {
		t.Fatalf("identical etl: %v, want merged", err)
	}

	// Same name, other worker size and env: rejected, naming both.
	big := same
	big.WorkerMemoryMB = 8192
	big.Env = map[string]string{"LANG": "fr"}
	err := MergeGroup(etl, big)
	var conflict *GroupConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("conflicting etl: err=%v, want *GroupConflictError", err)
	}
	if conflict.Name != "etl" || !slices.Equal(conflict.Differs, []string{"workerMemoryMB", "env"}) {
		t.Errorf("conflict = %+v", conflict)
	}
	if msg := err.Error(); !strings.Contains(msg, `"etl"`) || !strings.Contains(msg, "workerMemoryMB, env") {
		t.Errorf("message %q does not name the group and the properties", msg)
	}
}

func TestKindCompatibility(t *testing.T) {
	base := GroupProps{Name: "a", WorkerMemoryMB: 4096, WorkerVCores: 2, Env: map[string]string{"X": "1"}, MaxWorkers: 3}
	tests := []struct {
		name string
		q    GroupProps
		same bool
	}{
		// Only the container's resources decide: name, env and max
		// workers are re-initialised on recycling.
		{"other name, env, max", GroupProps{Name: "b", WorkerMemoryMB: 4096, WorkerVCores: 2, Env: map[string]string{"X": "2"}}, true},
		{"other memory", props("b", 8192, 2), false},
		{"other vcores", props("b", 4096, 1), false},
		{"both other", props("b", 2048, 4), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindKey(base) == KindKey(tt.q); got != tt.same {
				t.Errorf("KindKey %q vs %q: equal = %v, want %v", KindKey(base), KindKey(tt.q), got, tt.same)
			}
		})
	}
	// The key separates its fields: 40 MB × 96 vcores is not 409 MB × 6.
	if KindKey(props("a", 40, 96)) == KindKey(props("b", 409, 6)) {
		t.Error("KindKey is ambiguous")
	}
}

// A DAG that leaves the worker size to ebb shares any group whose workers
// hold its largest task; one whose task does not fit is a conflict that
// says the size was left to ebb.
func TestMergeGroupSizedByEbb(t *testing.T) {
	// The first DAG (widest vertex 2, tasks of 256 MB) sized the group at 512 MB.
	have := GroupProps{Name: "g", WorkerMemoryMB: 512, WorkerVCores: 1, SizedByEbb: true, TaskMB: 256}
	tests := []struct {
		name    string
		want    GroupProps
		differs []string
	}{
		// Same shape: identical properties.
		{"same shape", have, nil},
		// Wider DAG of 256 MB tasks would size 1024, but 256 fits 512: shared.
		{"wider, fits", GroupProps{Name: "g", WorkerMemoryMB: 1024, WorkerVCores: 1, SizedByEbb: true, TaskMB: 256}, nil},
		// A 512 MB task still fits a 512 MB worker.
		{"task = worker", GroupProps{Name: "g", WorkerMemoryMB: 512, WorkerVCores: 1, SizedByEbb: true, TaskMB: 512}, nil},
		// A 768 MB task does not.
		{"task too big", GroupProps{Name: "g", WorkerMemoryMB: 768, WorkerVCores: 1, SizedByEbb: true, TaskMB: 768}, []string{"workerMemoryMB"}},
		// An explicit size must match exactly, as before.
		{"explicit other", GroupProps{Name: "g", WorkerMemoryMB: 1024, WorkerVCores: 1}, []string{"workerMemoryMB"}},
		{"explicit same", GroupProps{Name: "g", WorkerMemoryMB: 512, WorkerVCores: 1}, nil},
		// Other properties still count.
		{"fits, other vcores", GroupProps{Name: "g", WorkerMemoryMB: 512, WorkerVCores: 2, SizedByEbb: true, TaskMB: 256}, []string{"workerVCores"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MergeGroup(have, tt.want)
			var conflict *GroupConflictError
			switch {
			case tt.differs == nil && err != nil:
				t.Fatalf("err = %v, want merged", err)
			case tt.differs != nil && (!errors.As(err, &conflict) || !slices.Equal(conflict.Differs, tt.differs)):
				t.Fatalf("err = %v, want a conflict on %v", err, tt.differs)
			}
		})
	}
	err := MergeGroup(have, GroupProps{Name: "g", WorkerMemoryMB: 2048, WorkerVCores: 1, SizedByEbb: true, TaskMB: 2048})
	for _, want := range []string{"in use with workerMemoryMB left to ebb (512 MB for tasks of up to 256 MB)",
		"this DAG asks for workerMemoryMB left to ebb (2048 MB for tasks of up to 2048 MB)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("message %v, want it to contain %q", err, want)
		}
	}
}
