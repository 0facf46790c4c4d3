package scheduler

import (
	"cmp"
	"slices"
)

// Move is one step of a fair rebalancing: N workers of group From are to
// stop gracefully and go to group To.
type Move struct {
	From, To string
	N        int
}

// FairShares computes each group's fair number of workers within a kind,
// in the order of groups. It is the average worker count, refined so that
// no group is given more than it wants (max-min fairness by
// water-filling):
//
//  1. The workers to share are all the kind's workers, T. The groups that
//     want workers (Wanted > 0) share them; the others get 0.
//  2. level = floor(remaining / sharing groups). A sharing group that
//     wants no more than level gets what it wants and leaves; repeat with
//     what remains.
//  3. When every sharing group wants more than level, each gets level,
//     and the remainder (remaining mod sharing groups, fewer than one per
//     group) goes one each to the groups that hold the most workers now,
//     oldest first among equals. Rounding thus never moves a worker by
//     itself: groups of 6 and 5 (T = 11, both wanting more) keep 6 and 5.
//
// The shares sum to min(T, total wanted): workers nobody wants have no
// share and stay where they are.
func FairShares(groups []KindGroup) []int {
	share := make([]int, len(groups))
	remaining := 0
	var sharing []int // indexes into groups
	for i, g := range groups {
		remaining += max(g.Workers, 0)
		if g.Wanted > 0 {
			sharing = append(sharing, i)
		}
	}
	for len(sharing) > 0 && remaining > 0 {
		level := remaining / len(sharing)
		rest := sharing[:0:0]
		for _, i := range sharing {
			if w := groups[i].Wanted; w <= level {
				share[i] = w
				remaining -= w
			} else {
				rest = append(rest, i)
			}
		}
		if len(rest) < len(sharing) {
			sharing = rest
			continue
		}
		slices.SortFunc(sharing, func(a, b int) int {
			if c := cmp.Compare(groups[b].Workers, groups[a].Workers); c != 0 {
				return c // most workers first
			}
			return groupAge(groups[a], groups[b])
		})
		extra := remaining - level*len(sharing)
		for k, i := range sharing {
			share[i] = level
			if k < extra {
				share[i]++
			}
		}
		break
	}
	return share
}

// FairMoves computes the workers to move between the groups of one kind
// (mr3.container.scheduler.scheme=fair, every check interval): groups
// above their fair share (FairShares) give, groups below it take. Only
// groups that want workers take, since a share never exceeds Wanted.
// Moves only transfer workers, so the kind's total is conserved, and
// every taker is filled exactly: the shares sum to at most the workers
// there are, so the surplus always covers the need.
//
// When there is more surplus than need (workers nobody wants), the groups
// with the largest surplus give first, the newest first among equals, so
// that older groups keep their workers as under fifo. Takers are filled
// oldest first. The result is deterministic for a given input.
func FairMoves(groups []KindGroup) []Move {
	share := FairShares(groups)
	type side struct {
		g KindGroup
		n int
	}
	var give, take []side
	for i, g := range groups {
		switch d := max(g.Workers, 0) - share[i]; {
		case d > 0:
			give = append(give, side{g, d})
		case d < 0:
			take = append(take, side{g, -d})
		}
	}
	slices.SortFunc(give, func(a, b side) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c // largest surplus first
		}
		return groupAge(b.g, a.g) // newest first
	})
	slices.SortFunc(take, func(a, b side) int {
		return groupAge(a.g, b.g)
	})
	var moves []Move
	gi := 0
	for _, t := range take {
		for t.n > 0 && gi < len(give) {
			n := min(t.n, give[gi].n)
			moves = append(moves, Move{From: give[gi].g.Name, To: t.g.Name, N: n})
			t.n -= n
			give[gi].n -= n
			if give[gi].n == 0 {
				gi++
			}
		}
	}
	return moves
}
