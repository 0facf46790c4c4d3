package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// The chart draws the thresholds, one band per run of equal states, each
// transition with its reason, and worker moves in and out.
func TestGroupChartMarks(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	g := GroupDetail{
		Group: Group{Name: "a", Autoscaled: true, OutThreshold: 80, InThreshold: 40},
		Usage: []core.UsagePoint{
			{At: at(0), State: "STABLE", UsagePercent: 90}, {At: at(10), State: "SCALE_OUT", UsagePercent: 95},
			{At: at(20), State: "SCALE_OUT", UsagePercent: 70}, {At: at(30), State: "STABLE", UsagePercent: 30},
		},
		Transitions: []Transition{{At: at(10), Group: "a", From: "STABLE", To: "SCALE_OUT", Reason: "usage 90% ≥ 80%, 3 attempts queued <b>"}},
		Moves:       []Move{{At: at(15), Worker: "w7", From: "b", To: "a"}, {At: at(25), Worker: "w2", From: "a", To: "b"}},
	}
	svg := groupChart(g, at(40))
	for _, want := range []string{
		`class="threshold out"`, `scale-out 80%`, `scale-in 40%`,
		`data-state="STABLE"`, `data-state="SCALE_OUT"`,
		`<g class="transition" data-to="SCALE_OUT">`, `SCALE_OUT: usage 90% ≥ 80%, 3 attempts queued &lt;b&gt;`,
		`data-dir="in"`, `worker w7 moved b → a`, `data-dir="out"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	// STABLE, SCALE_OUT, STABLE: three bands.
	if n := strings.Count(svg, `class="band"`); n != 3 {
		t.Errorf("%d bands, want 3", n)
	}
}
