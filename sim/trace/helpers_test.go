package trace

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// vertexOf finds a vertex by name or fails the test.
func vertexOf(t *testing.T, s *dag.Spec, name string) dag.VertexSpec {
	t.Helper()
	for _, v := range s.Vertices {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("spec %s has no vertex %q", s.Name, name)
	return dag.VertexSpec{}
}

// wantVertex checks a vertex's tasks, memory, vcores and durations.
func wantVertex(t *testing.T, s *dag.Spec, name string, tasks int, memMB int64, vcores int, durs ...time.Duration) {
	t.Helper()
	v := vertexOf(t, s, name)
	if v.Parallelism != tasks || v.MemoryMB != memMB || v.VCores != vcores {
		t.Errorf("%s/%s: %d tasks x %d MB x %d vcores, want %d x %d x %d", s.Name, name, v.Parallelism, v.MemoryMB, v.VCores, tasks, memMB, vcores)
	}
	if len(v.SimDurations) != len(durs) {
		t.Fatalf("%s/%s: %d durations %v, want %v", s.Name, name, len(v.SimDurations), v.SimDurations, durs)
	}
	for i, d := range durs {
		if v.SimDurations[i].D() != d {
			t.Errorf("%s/%s: duration[%d] = %s, want %s", s.Name, name, i, v.SimDurations[i].D(), d)
		}
	}
}

// edgesOf lists a spec's edges as "from->to".
func edgesOf(s *dag.Spec) []string {
	var out []string
	for _, e := range s.Edges {
		out = append(out, e.From+"->"+e.To+":"+e.Type.String())
	}
	return out
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
