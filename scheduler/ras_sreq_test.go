package scheduler

import (
	"testing"
	"time"
)

func TestEstimateSReq(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name string
		in   SReqInput
		want float64
	}{
		{"running count as whole tasks", SReqInput{Pending: 90, Running: 10, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: 300 * s}, 20},       // ceil(100×60/300) = 20
		{"exact quotient is not rounded up", SReqInput{Pending: 7, MeanTaskTime: 30 * s, HasGoal: true, TimeLeft: 70 * s}, 3},                   // 210/70 = 3
		{"fraction rounds up", SReqInput{Pending: 10, MeanTaskTime: 45 * s, HasGoal: true, TimeLeft: 100 * s}, 5},                               // ceil(450/100 = 4.5)
		{"sub-second means", SReqInput{Pending: 3, MeanTaskTime: 1500 * time.Millisecond, HasGoal: true, TimeLeft: 1500 * time.Millisecond}, 3}, // 4.5/1.5
		{"far goal still needs one", SReqInput{Pending: 3, MeanTaskTime: 10 * s, HasGoal: true, TimeLeft: time.Hour}, 1},                        // ceil(30/3600) = 1
		{"capped at unfinished tasks", SReqInput{Pending: 4, MeanTaskTime: 10 * time.Minute, HasGoal: true, TimeLeft: time.Minute}, 4},          // 40, but only 4 tasks
		{"no goal: all at once", SReqInput{Pending: 5, Running: 2, MeanTaskTime: 60 * s}, 7},                                                    // 5 + 2
		{"goal just passed", SReqInput{Pending: 5, Running: 2, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: 0}, 7},
		{"goal long passed", SReqInput{Pending: 5, Running: 2, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: -5 * s}, 7},
		{"no task finished yet", SReqInput{Pending: 5, Running: 2, HasGoal: true, TimeLeft: time.Hour}, 7},
		{"nothing unfinished", SReqInput{MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: time.Hour}, 0},
		{"negative counts read as 0", SReqInput{Pending: -3, Running: 2, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: 60 * s}, 2}, // ceil(2×60/60)
		{"many long tasks do not overflow", SReqInput{Pending: 1_000_000, MeanTaskTime: 100 * time.Hour, HasGoal: true, TimeLeft: 1000 * time.Hour}, 100_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateSReq(tt.in); got != tt.want {
				t.Errorf("EstimateSReq(%+v) = %g, want %g", tt.in, got, tt.want)
			}
		})
	}
}
