package trace

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestDecimaSummary(t *testing.T) {
	jobs, err := Read("testdata/tpch_small.csv", "", Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want each of the 2 DAGs once", len(jobs))
	}
	byKey := map[string]Job{}
	for _, j := range jobs {
		byKey[j.ID[len("d0000-"):]] = j
	}
	q1, q2 := byKey["2g-q1"], byKey["10g-q2"]
	if q1.Spec == nil || q2.Spec == nil {
		t.Fatalf("jobs %v: want 2g-q1 and 10g-q2", jobs)
	}
	wantVertex(t, q1.Spec, "s0", 3, 2048, 1, 1500*time.Millisecond)
	wantVertex(t, q1.Spec, "s1", 2, 2048, 1, 251*time.Millisecond) // 250.5 ms rounds up
	wantVertex(t, q2.Spec, "s2", 4, 2048, 1, 300*time.Millisecond)
	if got := edgesOf(q2.Spec); !reflect.DeepEqual(got, []string{"s0->s2:scatter-gather", "s1->s2:scatter-gather"}) {
		t.Errorf("q2 edges %v", got)
	}
	if jobs[0].Submit <= 0 || jobs[1].Submit <= jobs[0].Submit {
		t.Errorf("arrivals %s, %s: want increasing and after 0", jobs[0].Submit, jobs[1].Submit)
	}
}

func TestDecimaSeeded(t *testing.T) {
	a, err := Read("testdata/tpch_small.json", "", Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Read("testdata/tpch_small.json", "", Options{Seed: 7})
	c, _ := Read("testdata/tpch_small.json", "", Options{Seed: 8})
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gave different jobs")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 7 and 8 gave the same jobs")
	}
	// Every task time comes from the stage's pooled measurements.
	pool := map[time.Duration]bool{time.Second: true, 2 * time.Second: true, 3 * time.Second: true, 4 * time.Second: true}
	v := vertexOf(t, a[0].Spec, "s0")
	if len(v.SimDurations) != 4 {
		t.Fatalf("s0 has %d durations, want one per task (4)", len(v.SimDurations))
	}
	for _, d := range v.SimDurations {
		if !pool[d.D()] {
			t.Errorf("s0 duration %s is not a measured one", d.D())
		}
	}
	// One measurement: every task takes it.
	wantVertex(t, a[0].Spec, "s1", 2, 2048, 1, 500*time.Millisecond)
}

func TestDecimaPoissonMean(t *testing.T) {
	// 4000 draws of mean 10 s: the sample mean gap is within 5% (its
	// standard error is 10/sqrt(4000) = 0.16 s, so 0.5 s is 3 of them).
	jobs, err := Read("testdata/tpch_small.csv", "", Options{Seed: 3, Model: ModelOptions{DecimaJobs: 4000, DecimaMeanInterarrival: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 4000 {
		t.Fatalf("%d jobs, want 4000", len(jobs))
	}
	mean := jobs[len(jobs)-1].Submit.Seconds() / float64(len(jobs))
	if math.Abs(mean-10) > 0.5 {
		t.Errorf("mean gap %.3f s, want 10 +- 0.5", mean)
	}
}
