package sim

import (
	"os"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/sim/trace"
)

// The one calibration of the RAS experiment, kept so it can be redone
// (EBB_RAS_CALIBRATE=1 go test ./sim -run TestRASPaperCalibrate -v): for
// each job alone on the 20 nodes under ras, the map duration that makes it
// finish in the paper's length in isolation, its reduce duration held at
// the file's value. A job's time alone grows with its map duration in
// steps of its map waves, so a few secant steps from the file's value
// find it. The printed values are what the scenario files carry, rounded
// to 0.1 s; TestRASPaperJobsAloneMatchTheirLengthInIsolation checks them.
func TestRASPaperCalibrate(t *testing.T) {
	if os.Getenv("EBB_RAS_CALIBRATE") == "" {
		t.Skip("a tool, not a check: set EBB_RAS_CALIBRATE=1 to run it")
	}
	sc, err := trace.ReadScenario("../examples/sim/ras-paper-exp1.json")
	if err != nil {
		t.Fatal(err)
	}
	alone := func(j Job, mapSecs float64) float64 {
		spec := *j.Spec
		spec.Vertices = append([]dag.VertexSpec(nil), spec.Vertices...)
		spec.Vertices[0].SimDurations = []dag.Duration{dag.Duration(time.Duration(mapSecs * float64(time.Second)))}
		j.Spec, j.Submit = &spec, 0
		return rasPaperRun(t, sc, []Job{j}, "ras").Jobs[0].JCT().Seconds()
	}
	for _, j := range sc.Jobs {
		length := rasPaperIsolation[j.ID].Seconds()
		m0 := j.Spec.Vertices[0].SimDurations[0].D().Seconds()
		m1 := 0.8 * m0
		for step := 0; step < 4; step++ {
			y0, y1 := alone(j, m0), alone(j, m1)
			if y0 == y1 {
				break
			}
			m0, m1 = m1, m0+(length-y0)*(m1-m0)/(y1-y0)
		}
		t.Logf("%s: map %.1f s: alone %.1f s, the paper's length %.0f s", j.ID, m1, alone(j, m1), length)
	}
}
