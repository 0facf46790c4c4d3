package sim

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/sim/trace"
)

// The one calibration of the RAS experiment, kept so it can be redone
// (EBB_RAS_CALIBRATE=1 go test ./sim -run TestRASPaperCalibrate -v): per
// application, the one map duration d that minimises the sum over its
// three instances of ((T_i(d) - L_i) / L_i)^2, T_i(d) the instance alone
// on the 20 nodes under ras with the file's reduce durations, L_i the
// paper's length in isolation. Golden-section search over [5 s, 400 s]
// to 0.1 s. The printed values are what the scenario files carry.
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
	byApp := map[string][]Job{}
	for _, j := range sc.Jobs {
		byApp[rasPaperApp(j)] = append(byApp[rasPaperApp(j)], j)
	}
	for _, app := range []string{"sort", "combine", "select"} {
		jobs := byApp[app]
		cost := func(d float64) float64 {
			sum := 0.0
			for _, j := range jobs {
				l := rasPaperIsolation[j.ID].Seconds()
				e := (alone(j, d) - l) / l
				sum += e * e
			}
			return sum
		}
		lo, hi := 5.0, 400.0
		g := (math.Sqrt(5) - 1) / 2
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		fa, fb := cost(a), cost(b)
		for hi-lo > 0.1 {
			if fa <= fb {
				hi, b, fb = b, a, fa
				a = hi - g*(hi-lo)
				fa = cost(a)
			} else {
				lo, a, fa = a, b, fb
				b = lo + g*(hi-lo)
				fb = cost(b)
			}
		}
		d := math.Round((lo+hi)/2*10) / 10
		for _, j := range jobs {
			t.Logf("%s %s: map %.1f s: alone %.1f s, the paper's length %.0f s", app, j.ID, d, alone(j, d), rasPaperIsolation[j.ID].Seconds())
		}
	}
}

// rasPaperApp is the application a job is an instance of, from its DAG's
// name (J1-sort, J2-combine, ...).
func rasPaperApp(j Job) string {
	name := j.Spec.Name
	return name[strings.LastIndex(name, "-")+1:]
}
