package ui

import (
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// A running DAG is on track when its progress so far, at the same rate,
// ends by the goal.
func TestGoalStatus(t *testing.T) {
	t0 := time.Unix(1000, 0)
	goal := t0.Add(100 * time.Second)
	cases := []struct {
		name     string
		state    core.DAGState
		progress float64
		now      time.Time
		finish   time.Time
		want     string
	}{
		// 50% after 40 s: projected 80 s ≤ 100 s.
		{"ahead", core.DAGRunning, 0.5, t0.Add(40 * time.Second), time.Time{}, "on track"},
		// 25% after 40 s: projected 160 s > 100 s.
		{"behind", core.DAGRunning, 0.25, t0.Add(40 * time.Second), time.Time{}, "at risk"},
		{"nothing done yet", core.DAGRunning, 0, t0.Add(10 * time.Second), time.Time{}, "starting"},
		{"past the goal", core.DAGRunning, 0.9, t0.Add(101 * time.Second), time.Time{}, "missed"},
		{"succeeded in time", core.DAGSucceeded, 1, t0.Add(200 * time.Second), t0.Add(90 * time.Second), "met"},
		{"succeeded late", core.DAGSucceeded, 1, t0.Add(200 * time.Second), t0.Add(110 * time.Second), "missed"},
		{"failed", core.DAGFailed, 0.5, t0.Add(50 * time.Second), t0.Add(50 * time.Second), "missed"},
	}
	for _, c := range cases {
		d := core.DAGStatus{State: c.state, Submit: t0, Goal: goal, Finish: c.finish}
		if got := goalStatus(d, c.progress, c.now); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
