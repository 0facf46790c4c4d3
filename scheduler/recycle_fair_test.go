package scheduler

import (
	"slices"
	"testing"
)

func TestFairRebalancing(t *testing.T) {
	tests := []struct {
		name   string
		groups []KindGroup // {Name, Seq, Workers, Wanted}
		shares []int
		moves  []Move
	}{
		{
			// T = 10 between two groups wanting 10 each: level 10/2 = 5.
			// a 10 - 5 = 5 above, b 0 + 5 below: a gives b 5.
			name:   "two groups, all workers in one",
			groups: []KindGroup{{"a", 1, 10, 10}, {"b", 2, 0, 10}},
			shares: []int{5, 5},
			moves:  []Move{{"a", "b", 5}},
		},
		{
			// T = 11, level 11/2 = 5 rem 1. The extra worker goes to the
			// group holding more now, a (6): shares 6, 5 = the current
			// counts, so rounding moves nothing.
			name:   "odd total: rounding never moves a worker",
			groups: []KindGroup{{"b", 1, 5, 10}, {"a", 2, 6, 10}},
			shares: []int{5, 6},
			moves:  nil,
		},
		{
			// T = 6 over three groups wanting 10: level 2 each.
			// a 3 - 2 = 1 and b 3 - 2 = 1 give; c takes 2. Takers oldest
			// first, givers largest surplus first (tie: newest, b).
			name:   "three groups",
			groups: []KindGroup{{"a", 1, 3, 10}, {"b", 2, 3, 10}, {"c", 3, 0, 10}},
			shares: []int{2, 2, 2},
			moves:  []Move{{"b", "c", 1}, {"a", "c", 1}},
		},
		{
			// T = 7, level 7/3 = 2 rem 1. The remainder goes to the group
			// with the most workers, a (7): shares 3, 2, 2.
			// a gives 7 - 3 = 4: b takes 2 (older), c takes 2.
			name:   "remainder to the group holding most",
			groups: []KindGroup{{"a", 1, 7, 10}, {"b", 2, 0, 10}, {"c", 3, 0, 10}},
			shares: []int{3, 2, 2},
			moves:  []Move{{"a", "b", 2}, {"a", "c", 2}},
		},
		{
			// T = 12, demands a 10, b 2, c 10. Level 12/3 = 4: b wants
			// 2 <= 4, gets 2; remaining 10 over a and c: level 5 each.
			// a 12 - 5 = 7 gives; b takes 2, c takes 5 (oldest first: b).
			name:   "a group wanting less than the average is capped",
			groups: []KindGroup{{"a", 1, 12, 10}, {"b", 2, 0, 2}, {"c", 3, 0, 10}},
			shares: []int{5, 2, 5},
			moves:  []Move{{"a", "b", 2}, {"a", "c", 5}},
		},
		{
			// c wants nothing (Wanted 0): it neither shares nor takes.
			// T = 10 over a and b: 5 each. c's share is 0.
			name:   "groups that want no workers do not take",
			groups: []KindGroup{{"a", 1, 10, 10}, {"b", 2, 0, 10}, {"c", 3, 0, 0}},
			shares: []int{5, 5, 0},
			moves:  []Move{{"a", "b", 5}},
		},
		{
			// b holds 6 it does not want; a wants 10 and holds 4.
			// T = 10, only a shares: level 10 >= its want 10, share 10.
			// b gives 6 to a.
			name:   "an idle group gives to a busy one",
			groups: []KindGroup{{"a", 1, 4, 10}, {"b", 2, 6, 0}},
			shares: []int{10, 0},
			moves:  []Move{{"b", "a", 6}},
		},
		{
			// Wants a 3, b 2, c 3: T = 20 covers them all (8), so shares
			// are the wants; 12 workers nobody wants stay put.
			// Surplus a 10-3 = 7, b 10-2 = 8; c needs 3: b (largest
			// surplus) gives 3.
			name:   "surplus beyond all wants stays",
			groups: []KindGroup{{"a", 1, 10, 3}, {"b", 2, 10, 2}, {"c", 3, 0, 3}},
			shares: []int{3, 2, 3},
			moves:  []Move{{"b", "c", 3}},
		},
		{
			// T = 2 over three groups wanting more: level 0, remainder 2
			// to the two holding most, a (2) then b (0, older than c).
			// a gives 1 to b.
			name:   "fewer workers than groups",
			groups: []KindGroup{{"a", 1, 2, 5}, {"b", 2, 0, 5}, {"c", 3, 0, 5}},
			shares: []int{1, 1, 0},
			moves:  []Move{{"a", "b", 1}},
		},
		{
			name:   "no workers",
			groups: []KindGroup{{"a", 1, 0, 5}, {"b", 2, 0, 5}},
			shares: []int{0, 0},
			moves:  nil,
		},
		{
			name:   "balanced",
			groups: []KindGroup{{"a", 1, 4, 8}, {"b", 2, 4, 8}},
			shares: []int{4, 4},
			moves:  nil,
		},
		{
			name:   "no groups",
			groups: nil,
			shares: []int{},
			moves:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.groups)
			if got := FairShares(tt.groups); !slices.Equal(got, tt.shares) {
				t.Errorf("FairShares = %v, want %v", got, tt.shares)
			}
			moves := FairMoves(tt.groups)
			if !slices.Equal(moves, tt.moves) {
				t.Errorf("FairMoves = %v, want %v", moves, tt.moves)
			}
			if !slices.Equal(in, tt.groups) {
				t.Errorf("input changed: %v", tt.groups)
			}
			checkMoves(t, tt.groups, moves)
		})
	}
}

// checkMoves applies moves and checks the invariants every rebalancing
// must keep: the kind's total is conserved, no group goes negative, only
// groups that want more workers than they have take, and afterwards every
// group that wants workers holds at least its fair share.
func checkMoves(t *testing.T, groups []KindGroup, moves []Move) {
	t.Helper()
	after := map[string]int{}
	before, total := 0, 0
	for _, g := range groups {
		after[g.Name] = g.Workers
		before += g.Workers
	}
	for _, m := range moves {
		if m.N <= 0 || m.From == m.To {
			t.Errorf("degenerate move %+v", m)
		}
		after[m.From] -= m.N
		after[m.To] += m.N
	}
	shares := FairShares(groups)
	for i, g := range groups {
		total += after[g.Name]
		if after[g.Name] < 0 {
			t.Errorf("%s ends with %d workers", g.Name, after[g.Name])
		}
		if after[g.Name] > g.Workers && after[g.Name] > g.Wanted {
			t.Errorf("%s took beyond its want: %d > %d", g.Name, after[g.Name], g.Wanted)
		}
		if g.Wanted > 0 && after[g.Name] < shares[i] {
			t.Errorf("%s ends below its share: %d < %d", g.Name, after[g.Name], shares[i])
		}
	}
	if total != before {
		t.Errorf("total %d -> %d", before, total)
	}
}

// Running the rebalancing again on its own result moves nothing: fair
// does not oscillate between intervals.
func TestFairRebalancingIsStable(t *testing.T) {
	groups := []KindGroup{{"a", 1, 13, 9}, {"b", 2, 0, 4}, {"c", 3, 1, 20}, {"d", 4, 3, 0}, {"e", 5, 0, 7}}
	for round := range 2 {
		moves := FairMoves(groups)
		checkMoves(t, groups, moves)
		if round == 1 && moves != nil {
			t.Fatalf("second round moved %v", moves)
		}
		idx := map[string]int{}
		for i, g := range groups {
			idx[g.Name] = i
		}
		for _, m := range moves {
			groups[idx[m.From]].Workers -= m.N
			groups[idx[m.To]].Workers += m.N
		}
	}
}
