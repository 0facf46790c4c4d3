package scheduler

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRecycleScheme(t *testing.T) {
	for _, want := range []RecycleScheme{RecycleNone, RecycleFIFO, RecycleFair} {
		got, err := ParseRecycleScheme(want.String())
		if err != nil || got != want {
			t.Errorf("ParseRecycleScheme(%q) = %v, %v", want.String(), got, err)
		}
	}
	if RecycleNone.Recycles() || !RecycleFIFO.Recycles() || !RecycleFair.Recycles() {
		t.Error("Recycles: only fifo and fair move workers")
	}
	for _, bad := range []string{"", "FIFO", "lifo", "fair "} {
		_, err := ParseRecycleScheme(bad)
		var se *RecycleSchemeError
		if !errors.As(err, &se) || se.Value != bad {
			t.Errorf("ParseRecycleScheme(%q) error = %v", bad, err)
			continue
		}
		for _, want := range []string{"mr3.container.scheduler.scheme", "none, fifo, fair"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
	}
	if s := RecycleScheme(7).String(); s != "RecycleScheme(7)" {
		t.Errorf("String of an unknown scheme = %q", s)
	}
}

func TestFIFOTarget(t *testing.T) {
	tests := []struct {
		name   string
		groups []KindGroup
		from   string
		want   string
	}{
		{
			// b (seq 2) and c (seq 3) need workers: the older, b.
			name:   "oldest needing group",
			groups: []KindGroup{{"a", 1, 4, 0}, {"c", 3, 0, 2}, {"b", 2, 1, 3}},
			from:   "a",
			want:   "b",
		},
		{
			// b is older but has what it wants (3 of 3): c.
			name:   "satisfied groups are skipped",
			groups: []KindGroup{{"a", 1, 4, 0}, {"b", 2, 3, 3}, {"c", 3, 0, 2}},
			from:   "a",
			want:   "c",
		},
		{
			name:   "nobody needs workers",
			groups: []KindGroup{{"a", 1, 4, 0}, {"b", 2, 5, 1}},
			from:   "a",
			want:   "",
		},
		{
			// a itself wants 5 and has 4: the worker stays rather than
			// make a ask YARN for a replacement, though b needs workers.
			name:   "own group needs workers",
			groups: []KindGroup{{"a", 1, 4, 5}, {"b", 2, 0, 2}},
			from:   "a",
			want:   "",
		},
		{
			// own group c needs workers too, though older b needs more:
			// the worker stays in c.
			name:   "own group needs workers, older group too",
			groups: []KindGroup{{"b", 2, 0, 2}, {"c", 3, 1, 2}},
			from:   "c",
			want:   "",
		},
		{
			// equal sequence numbers: the name decides, so the answer is
			// one.
			name:   "seq tie by name",
			groups: []KindGroup{{"a", 1, 2, 0}, {"y", 5, 0, 1}, {"x", 5, 0, 1}},
			from:   "a",
			want:   "x",
		},
		{
			name:   "only group of its kind",
			groups: []KindGroup{{"a", 1, 1, 0}},
			from:   "a",
			want:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FIFOTarget(tt.groups, tt.from); got != tt.want {
				t.Errorf("FIFOTarget = %q, want %q", got, tt.want)
			}
		})
	}
}
