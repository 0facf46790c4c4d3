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
