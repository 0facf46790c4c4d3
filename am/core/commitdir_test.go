package core

import (
	"testing"

	"github.com/ebb-am/ebb/dag"
)

// Sink attempts commit into the staging directory when the AM stages
// results, so that nothing reaches the output before the DAG succeeds.
func TestCommitDirPrefersStaging(t *testing.T) {
	one := []*vertexRun{{spec: &dag.VertexSpec{Name: "map"}}, {spec: &dag.VertexSpec{Name: "reduce"}, sink: true}}
	two := []*vertexRun{{spec: &dag.VertexSpec{Name: "a"}, sink: true}, {spec: &dag.VertexSpec{Name: "b"}, sink: true}}
	for _, c := range []struct {
		name     string
		sub      Submission
		vertices []*vertexRun
		want     string // of the last vertex
	}{
		{"no output", Submission{}, one, ""},
		{"output only", Submission{Output: "/out"}, one, "/out"},
		{"staged", Submission{Output: "/out", Staging: "/out/_temporary/ab"}, one, "/out/_temporary/ab"},
		{"staged, two sinks", Submission{Output: "/out", Staging: "/out/_temporary/ab"}, two, "/out/_temporary/ab/b"},
		{"staged URL, two sinks", Submission{Output: "hdfs://nn:1/out", Staging: "hdfs://nn:1/out/_temporary/ab"}, two, "hdfs://nn:1/out/_temporary/ab/b"},
	} {
		d := &dagRun{sub: c.sub, vertices: c.vertices}
		if got := d.commitDir(c.vertices[len(c.vertices)-1]); got != c.want {
			t.Errorf("%s: commitDir = %q, want %q", c.name, got, c.want)
		}
	}
}
