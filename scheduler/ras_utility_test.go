package scheduler

import (
	"encoding/json"
	"math"
	"testing"
)

func TestUtility(t *testing.T) {
	const F = UtilityFloor
	tests := []struct {
		name                               string
		sAlloc, sReq, sPend, rAlloc, rPend float64
		want                               float64
	}{
		// Below s_req: log(s_alloc)/log(s_req) - 1.
		{"4 of 16 needed", 4, 16, 32, 0, 0, 0.5 - 1},         // log4/log16 = 2/4
		{"2 of 8 needed", 2, 8, 32, 0, 0, 1.0/3 - 1},         // log2/log8 = 1/3
		{"1 of 10 needed", 1, 10, 32, 0, 0, -1},              // log1 = 0
		{"none of 10 needed", 0, 10, 32, 0, 0, F},            // log0 = -inf
		{"tiny fraction clamps", 1e-300, 1.0001, 4, 0, 0, F}, // -690/1e-4 - 1 < floor
		// From s_req to s_pend: (s_alloc - s_req)/(s_pend - s_req).
		{"exactly s_req", 16, 16, 32, 0, 0, 0},
		{"halfway to s_pend", 24, 16, 32, 0, 0, 0.5}, // 8/16
		{"all pending", 32, 16, 32, 0, 0, 1},
		{"more than pending is capped", 40, 16, 32, 0, 0, 1},
		// s_req <= 1: the log segment is empty.
		{"s_req 1, none", 0, 1, 5, 0, 0, F},
		{"s_req 1, one", 1, 1, 5, 0, 0, 0},     // (1-1)/(5-1)
		{"s_req 1, three", 3, 1, 5, 0, 0, 0.5}, // (3-1)/(5-1)
		{"s_req 0.5, quarter", 0.25, 0.5, 5, 0, 0, F},
		{"s_req 0, none allocated", 0, 0, 4, 0, 0, 0},   // (0-0)/(4-0)
		{"s_req 0, one allocated", 1, 0, 4, 0, 0, 0.25}, // (1-0)/(4-0)
		// s_pend = s_req: no linear segment.
		{"s_pend = s_req, reached", 8, 8, 8, 0, 0, 1},
		{"s_pend = s_req, half", 4, 8, 8, 0, 0, 2.0/3 - 1}, // log4/log8 = 2/3
		// s_req above s_pend is read as s_pend.
		{"s_req > s_pend, all running", 4, 10, 4, 0, 0, 1},
		{"s_req > s_pend, half", 2, 10, 4, 0, 0, 0.5 - 1}, // log2/log4
		// Nothing pending.
		{"nothing at all", 0, 0, 0, 0, 0, 1},
		// Consumers: log(r_alloc)/log(r_pend) - 1 in [-1, 0].
		{"half the consumers", 24, 16, 32, 2, 4, 0.5 + 0.5 - 1},      // 0.5 + log2/log4 - 1
		{"no consumers placed", 24, 16, 32, 0, 4, 0.5 - 1},           // 0.5 - 1
		{"all consumers placed", 24, 16, 32, 4, 4, 0.5},              // 0.5 + 0
		{"one consumer, placed", 32, 16, 32, 1, 1, 1},                // 1 + 0
		{"one consumer, unplaced", 32, 16, 32, 0, 1, 0},              // 1 - 1
		{"fractional consumer floor", 32, 16, 32, 0.5, 4, 0},         // 1 + max(-1, log.5/log4 - 1 = -1.5)
		{"starving with unplaced consumers", 0, 10, 20, 0, 4, F - 1}, // floor - 1
		// Negative and NaN counts read as 0.
		{"negative alloc", -3, 10, 20, 0, 0, F},
		{"NaN alloc", math.NaN(), 10, 20, 0, 0, F},
		{"negative consumers pending", 24, 16, 32, 0, -2, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Utility(tt.sAlloc, tt.sReq, tt.sPend, tt.rAlloc, tt.rPend)
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Utility(%g, %g, %g, %g, %g) = %g, want %g", tt.sAlloc, tt.sReq, tt.sPend, tt.rAlloc, tt.rPend, got, tt.want)
			}
		})
	}
}

// One more task never lowers a DAG's utility, so giving the lowest DAG a
// task is always a step up for it.
func TestUtilityRisesWithTasks(t *testing.T) {
	for _, c := range []struct{ sReq, sPend float64 }{{0, 10}, {1, 10}, {4, 10}, {10, 10}, {12, 10}, {3, 3}} {
		prev := math.Inf(-1)
		for a := 0.0; a <= c.sPend+2; a++ {
			u := Utility(a, c.sReq, c.sPend, 0, 0)
			if u < prev {
				t.Errorf("s_req %g, s_pend %g: utility falls from %g to %g at s_alloc %g", c.sReq, c.sPend, prev, u, a)
			}
			if u < UtilityFloor || u > 1 {
				t.Errorf("s_req %g, s_pend %g, s_alloc %g: utility %g outside [floor, 1]", c.sReq, c.sPend, a, u)
			}
			prev = u
		}
	}
}

// The floor keeps plans encodable: JSON has no -Inf.
func TestUtilityFloorEncodes(t *testing.T) {
	if _, err := json.Marshal(Utility(0, 10, 20, 0, 4)); err != nil {
		t.Fatalf("utility of a starving DAG does not encode: %v", err)
	}
}
