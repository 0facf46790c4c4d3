package scheduler

import (
	"testing"
	"time"
)

// An empty node paid until t=3600 with a 10 s margin: kept while more
// than 10 s of its period are left; within them it goes unless work
// needs it; with no known period nothing is kept for it.
func TestKeepEmptyNode(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		now    int
		paid   time.Time
		needed bool
		keep   bool
	}{
		{100, at(3600), false, true},  // 3500 s left
		{3589, at(3600), false, true}, // 11 s left > 10
		{3590, at(3600), false, false},
		{3590, at(3600), true, true}, // queued work: kept, and renews
		{3600, at(3600), false, false},
		{100, time.Time{}, false, false}, // unknown period
	} {
		if got := KeepEmptyNode(at(c.now), c.paid, 10*time.Second, c.needed); got != c.keep {
			t.Errorf("now %d, paid until %v, needed %v: keep %v, want %v", c.now, c.paid.Sub(t0), c.needed, got, c.keep)
		}
	}
}
