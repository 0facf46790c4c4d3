package trace

import (
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/traces"
)

// The generator is deterministic in its seed, and its day looks like the
// distributions it is drawn from: about one DAG per 21 s (the trace's mean
// interval 0.205 s × 4034 / 40 machines), about 3.4 tasks per DAG.
func TestAlibabaDAGGenerated(t *testing.T) {
	dir := traces.Path(t, "alibaba_v2018_dag_distributions")
	o := Options{Seed: 1, Model: ModelOptions{AlibabaDAGSpan: 6 * time.Hour}}
	a, err := Read(dir, "", o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(dir, "", o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two reads with one seed differ")
	}
	// 6 h / 20.7 s = 1043 expected; a Poisson count's sd is about 32.
	if n := len(a); n < 900 || n > 1200 {
		t.Errorf("%d DAGs in 6 h, want about 1043", n)
	}
	var vertices, edges int
	for _, j := range a {
		vertices += len(j.Spec.Vertices)
		edges += len(j.Spec.Edges)
	}
	if mean := float64(vertices) / float64(len(a)); mean < 3 || mean > 3.8 {
		t.Errorf("%.2f tasks per DAG, want about 3.4 (task_num_dist's mean)", mean)
	}
	if edges == 0 {
		t.Error("no edges: the levels were not connected")
	}
	c, err := Read(dir, "", Options{Seed: 2, Model: ModelOptions{AlibabaDAGSpan: 6 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 1 and 2 gave the same jobs")
	}
}
