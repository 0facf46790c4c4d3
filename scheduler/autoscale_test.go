package scheduler

import (
	"testing"
	"time"
)

func TestStateNames(t *testing.T) {
	for s, want := range map[State]string{
		StateStable: "STABLE", StateScaleOut: "SCALE_OUT", StateScaleIn: "SCALE_IN", State(9): "State(9)",
	} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

// The history keeps the newest maxHistory transitions, oldest first.
func TestHistoryIsBounded(t *testing.T) {
	c := DefaultAutoscaleConfig()
	c.OutGracePeriod = 0 // every second step leaves SCALE_OUT
	a, err := NewAutoscaler("etl", c)
	if err != nil {
		t.Fatal(err)
	}
	queued := GroupSnapshot{QueuedAttempts: 1, QueuedMB: 100, WorkerMB: 1000, PendingWorkers: 0}
	steps := maxHistory + 10
	for i := range steps {
		// No worker with one attempt queued: STABLE → SCALE_OUT; then,
		// with the worker still pending, the zero grace period ends it.
		s := queued
		if i%2 == 1 {
			s.PendingWorkers = 1
		}
		if d := a.Step(at(i), s); !d.Changed() || d.From == d.To {
			t.Fatalf("step %d: %+v, want a transition", i, d)
		}
	}
	h := a.History()
	if len(h) != maxHistory {
		t.Fatalf("len(History()) = %d, want %d", len(h), maxHistory)
	}
	// steps − maxHistory = 10 transitions were forgotten: the oldest kept
	// is the one at t=10, the newest at t=steps−1.
	if !h[0].At.Equal(at(10)) || !h[len(h)-1].At.Equal(at(steps-1)) {
		t.Errorf("history spans %v … %v, want t=10 … t=%d", h[0].At, h[len(h)-1].At, steps-1)
	}
	// History is a copy: changing it does not change the autoscaler's.
	h[0].Reason = "edited"
	if a.History()[0].Reason == "edited" {
		t.Error("History() shares its backing array")
	}
}

func TestDecisionChanged(t *testing.T) {
	for _, tt := range []struct {
		d    Decision
		want bool
	}{
		{Decision{From: StateStable, To: StateStable}, false},
		{Decision{From: StateStable, To: StateScaleOut}, true},
		{Decision{From: StateScaleOut, To: StateScaleOut, RequestWorkers: 1}, true},
		{Decision{From: StateStable, To: StateStable, CancelPending: true}, true},
		{Decision{From: StateScaleIn, To: StateScaleIn, DrainNodes: []string{"n1"}}, true},
	} {
		if got := tt.d.Changed(); got != tt.want {
			t.Errorf("%+v.Changed() = %v, want %v", tt.d, got, tt.want)
		}
	}
}

// Step never looks at a clock: the same inputs give the same decision
// whenever the test runs.
func TestStepIsDeterministic(t *testing.T) {
	run := func() Decision {
		a, err := NewAutoscaler("etl", DefaultAutoscaleConfig())
		if err != nil {
			t.Fatal(err)
		}
		a.Sample(Sample{At: at(0), RunningMB: 900, OfferedMB: 1000, Workers: 1, RunningAttempts: 1})
		return a.Step(at(0).Add(time.Second), GroupSnapshot{Workers: 1, QueuedAttempts: 3, QueuedMB: 300, WorkerMB: 1000})
	}
	x, y := run(), run()
	if x.Reason != y.Reason || x.RequestWorkers != y.RequestWorkers || x.To != StateScaleOut {
		t.Errorf("decisions differ or do not scale out: %+v vs %+v", x, y)
	}
}
