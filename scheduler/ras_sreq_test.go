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
		{"negative counts read as 0", SReqInput{Pending: -3, Running: 2, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: 60 * s}, 2},                                      // ceil(2×60/60)
		{"a reduce phase shortens the maps' time", SReqInput{Pending: 90, Running: 10, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: 300 * s, ReduceTime: 100 * s}, 30}, // ceil(100×60/(300-100)) = 30, not 20
		{"no time left for the maps", SReqInput{Pending: 90, Running: 10, MeanTaskTime: 60 * s, HasGoal: true, TimeLeft: 300 * s, ReduceTime: 300 * s}, 100},             // late: all 100
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

// The plan passes a DAG's reduce phase to s_req: 100 pending maps of a
// mean 60 s, goal 300 s away. Without a reduce phase s_req is
// ceil(6000/300) = 20; with a 150 s reduce the maps have 150 s:
// ceil(6000/150) = 40.
func TestPlanSReqRisesWithTheReducePhase(t *testing.T) {
	now := time.Unix(0, 0)
	snap := func(reduce time.Duration) RASSnapshot {
		return RASSnapshot{
			Nodes: []RASNode{{ID: "n1"}},
			DAGs: []RASDAG{{ID: "d", Goal: now.Add(300 * time.Second),
				Producers: RASProducers{Pending: 100, Profile: Profile{CPU: 0.1, Memory: 0.1, IO: 0.1}, MeanTaskTime: 60 * time.Second},
				Consumers: RASConsumers{Pending: 1, Reduce: Profile{CPU: 0.1, Memory: 0.1, IO: 0.1}, Time: reduce}}},
		}
	}
	for _, c := range []struct {
		reduce time.Duration
		want   float64
	}{{0, 20}, {150 * time.Second, 40}} {
		d, _ := Plan(now, snap(c.reduce)).DAG("d")
		if d.SReq != c.want {
			t.Errorf("reduce phase %s: s_req %g, want %g", c.reduce, d.SReq, c.want)
		}
	}
}
