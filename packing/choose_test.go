package packing

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// n builds a node of capacity c with used units in use and the rest free.
func n(id string, c, used int64) Node {
	return Node{ID: id, CapacityMB: c, UsedMB: used, FitsMB: c - used}
}

func TestPackedChoose(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		nodes []Node
		req   Request
		want  int // index, -1 = does not fit
	}{
		{
			// medium nodes a 30% and b 50%: fullest first, and b stays at
			// (5+1)/10 = 60% <= 80%.
			name:  "medium fullest first",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 3), n("z", 10, 0), n("b", 10, 5)},
			req:   Request{MemoryMB: 1},
			want:  2,
		},
		{
			// usage compares as a fraction: a 40/100 = 40% is fuller than
			// b 3/10 = 30% although b's 3 is not more than a's 40.
			name:  "usage is a fraction of capacity",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("b", 10, 3), n("a", 100, 40)},
			req:   Request{MemoryMB: 1},
			want:  1,
		},
		{
			// b 70% + 2 = 90% > 80%: b refuses; a 20% + 2 = 40% takes it.
			name:  "medium node that would cross the threshold is skipped",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 2), n("b", 10, 7)},
			req:   Request{MemoryMB: 2},
			want:  0,
		},
		{
			// b 60% + 2 = 80% <= 80%: exactly at the threshold is allowed.
			name:  "medium node may reach the threshold exactly",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 2), n("b", 10, 6)},
			req:   Request{MemoryMB: 2},
			want:  1,
		},
		{
			// a 80% is medium but 90% after: refused; low node z comes
			// before the high node h 90%.
			name:  "low before high",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 8), n("h", 10, 9), n("z", 10, 0)},
			req:   Request{MemoryMB: 1},
			want:  2,
		},
		{
			// no medium or low node: high nodes, emptiest first: g 85% < h 90%.
			name:  "high emptiest first",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("h", 100, 90), n("g", 100, 85)},
			req:   Request{MemoryMB: 1},
			want:  1,
		},
		{
			// every node at 80% (medium, 90% after): they still have room,
			// so the last step takes the emptiest; all equal, lowest index.
			name:  "all nodes just below the threshold still place",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 8), n("b", 10, 8)},
			req:   Request{MemoryMB: 1},
			want:  0,
		},
		{
			// threshold 60: b 70% is high, a 50% is medium and 60% after.
			name:  "threshold 60",
			opts:  Options{HighThresholdPercent: 60},
			nodes: []Node{n("b", 10, 7), n("a", 10, 5)},
			req:   Request{MemoryMB: 1},
			want:  1,
		},
		{
			// threshold 0: any used node is high, so an empty node wins
			// over a 10% one.
			name:  "threshold 0 makes used nodes high",
			opts:  Options{HighThresholdPercent: 0},
			nodes: []Node{n("a", 10, 1), n("z", 10, 0)},
			req:   Request{MemoryMB: 1},
			want:  1,
		},
		{
			// FitsMB decides fitting, not capacity minus use: b has 5 free
			// but its freest worker has 1.
			name:  "FitsMB decides",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 2), {ID: "b", CapacityMB: 10, UsedMB: 5, FitsMB: 1}},
			req:   Request{MemoryMB: 2},
			want:  0,
		},
		{
			name:  "nothing fits",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 9), n("b", 10, 10)},
			req:   Request{MemoryMB: 2},
			want:  -1,
		},
		{
			name:  "no nodes",
			opts:  Options{HighThresholdPercent: 80},
			nodes: nil,
			req:   Request{MemoryMB: 1},
			want:  -1,
		},
		{
			// a node without capacity has no usage and is never chosen.
			name:  "zero-capacity node ignored",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{{ID: "x", FitsMB: 5}},
			req:   Request{MemoryMB: 1},
			want:  -1,
		},
		{
			// 2 nodes < MinNodes 5: packing off, uniform picks the emptiest,
			// a 10%, where packed would pick b 50%.
			name:  "below min nodes behaves like uniform",
			opts:  Options{HighThresholdPercent: 80, MinNodes: 5},
			nodes: []Node{n("b", 10, 5), n("a", 10, 1)},
			req:   Request{MemoryMB: 1},
			want:  1,
		},
		{
			// 2 nodes >= MinNodes 2: packing on, b 50% first.
			name:  "at min nodes packs",
			opts:  Options{HighThresholdPercent: 80, MinNodes: 2},
			nodes: []Node{n("b", 10, 5), n("a", 10, 1)},
			req:   Request{MemoryMB: 1},
			want:  0,
		},
		{
			// within the delay only preferred a is eligible, though b is
			// fuller.
			name:  "locality within delay",
			opts:  Options{HighThresholdPercent: 80, LocalityDelay: time.Second},
			nodes: []Node{n("a", 10, 1), n("b", 10, 5)},
			req:   Request{MemoryMB: 1, Preferred: []string{"a"}, Waited: 999 * time.Millisecond},
			want:  0,
		},
		{
			// within the delay a preferred node that is full means wait,
			// even though b has room.
			name:  "locality within delay, preferred full",
			opts:  Options{HighThresholdPercent: 80, LocalityDelay: time.Second},
			nodes: []Node{n("a", 10, 10), n("b", 10, 5)},
			req:   Request{MemoryMB: 1, Preferred: []string{"a"}, Waited: 0},
			want:  -1,
		},
		{
			// waited 1s = delay: any node; preferred a is full, b takes it.
			name:  "locality after delay, preferred full",
			opts:  Options{HighThresholdPercent: 80, LocalityDelay: time.Second},
			nodes: []Node{n("a", 10, 10), n("b", 10, 5)},
			req:   Request{MemoryMB: 1, Preferred: []string{"a"}, Waited: time.Second},
			want:  1,
		},
		{
			// after the delay preferred nodes still rank first within a
			// step: a 10% beats the fuller b 50% among medium nodes.
			name:  "locality after delay, preferred first within the step",
			opts:  Options{HighThresholdPercent: 80, LocalityDelay: time.Second},
			nodes: []Node{n("b", 10, 5), n("a", 10, 1)},
			req:   Request{MemoryMB: 1, Preferred: []string{"a"}, Waited: 2 * time.Second},
			want:  1,
		},
		{
			// ...but not across steps: preferred low z waits for the medium
			// step to be empty, and medium b takes it.
			name:  "locality after delay does not reorder the steps",
			opts:  Options{HighThresholdPercent: 80, LocalityDelay: time.Second},
			nodes: []Node{n("z", 10, 0), n("b", 10, 5)},
			req:   Request{MemoryMB: 1, Preferred: []string{"z"}, Waited: 2 * time.Second},
			want:  1,
		},
		{
			// delay 0: preferences are a ranking from the start.
			name:  "zero delay",
			opts:  Options{HighThresholdPercent: 80},
			nodes: []Node{n("a", 10, 10), n("b", 10, 5)},
			req:   Request{MemoryMB: 1, Preferred: []string{"a"}},
			want:  1,
		},
		{
			// within the delay among low nodes only the preferred one: z2.
			name:  "locality among low nodes",
			opts:  Options{HighThresholdPercent: 80, LocalityDelay: time.Second},
			nodes: []Node{n("z0", 10, 0), n("z1", 10, 0), n("z2", 10, 0), n("z3", 10, 0)},
			req:   Request{MemoryMB: 1, Preferred: []string{"q", "z2"}},
			want:  2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New("packed", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			i, ok := a.Choose(tt.nodes, tt.req)
			if ok != (tt.want >= 0) || (ok && i != tt.want) {
				t.Errorf("Choose = %d, %v; want %d", i, ok, tt.want)
			}
		})
	}
}

func TestUniformChoose(t *testing.T) {
	tests := []struct {
		name  string
		nodes []Node
		req   Request
		delay time.Duration
		want  int
	}{
		// a 50%, b 10%, c 10%: lowest usage, tie to the lower index.
		{"lowest usage, ties by index", []Node{n("a", 10, 5), n("b", 10, 1), n("c", 10, 1)}, Request{MemoryMB: 1}, 0, 1},
		// b 1/10 = 10% is emptier than a 20/100 = 20%.
		{"usage is a fraction", []Node{n("a", 100, 20), n("b", 10, 1)}, Request{MemoryMB: 1}, 0, 1},
		// b has the lowest usage but no room for 6.
		{"must fit", []Node{n("a", 10, 3), n("b", 10, 5), {ID: "c", CapacityMB: 10, FitsMB: 2}}, Request{MemoryMB: 6}, 0, 0},
		// within the delay: only preferred b, though a is emptier.
		{"preferred within delay", []Node{n("a", 10, 0), n("b", 10, 5)}, Request{MemoryMB: 1, Preferred: []string{"b"}}, time.Second, 1},
		// within the delay, preferred b full: wait.
		{"preferred full within delay", []Node{n("a", 10, 0), n("b", 10, 10)}, Request{MemoryMB: 1, Preferred: []string{"b"}}, time.Second, -1},
		// after the delay: preferred b full, a takes it.
		{"preferred full after delay", []Node{n("a", 10, 0), n("b", 10, 10)}, Request{MemoryMB: 1, Preferred: []string{"b"}, Waited: time.Second}, time.Second, 0},
		{"nothing fits", []Node{n("a", 10, 10)}, Request{MemoryMB: 1}, 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New("uniform", Options{LocalityDelay: tt.delay})
			if err != nil {
				t.Fatal(err)
			}
			i, ok := a.Choose(tt.nodes, tt.req)
			if ok != (tt.want >= 0) || (ok && i != tt.want) {
				t.Errorf("Choose = %d, %v; want %d", i, ok, tt.want)
			}
		})
	}
}

// The random choice among low nodes depends only on the seed: the same
// seed gives the same node every time, and different seeds use several
// low nodes (never a medium or high one, which are not offered here).
func TestPackedLowChoiceIsSeeded(t *testing.T) {
	a, err := New("packed", Options{HighThresholdPercent: 80})
	if err != nil {
		t.Fatal(err)
	}
	// h1 (90%) and h3 (full) are not low; the other four are.
	nodes := []Node{n("z0", 10, 0), n("h1", 10, 9), n("z2", 10, 0), n("h3", 10, 10), n("z4", 10, 0), n("z5", 10, 0)}
	seen := map[int]bool{}
	for seed := uint64(0); seed < 64; seed++ {
		first, ok := a.Choose(nodes, Request{MemoryMB: 1, Seed: seed})
		if !ok {
			t.Fatalf("seed %d: no node", seed)
		}
		for range 3 {
			if again, _ := a.Choose(nodes, Request{MemoryMB: 1, Seed: seed}); again != first {
				t.Fatalf("seed %d: chose %d then %d", seed, first, again)
			}
		}
		if nodes[first].UsedMB != 0 {
			t.Fatalf("seed %d: chose non-low node %s", seed, nodes[first].ID)
		}
		seen[first] = true
	}
	// 64 seeds over 4 low nodes: a mixer that ignored the seed would hit
	// one node only; every low node should come up.
	if len(seen) != 4 {
		t.Errorf("low nodes used over 64 seeds = %v, want all 4", seen)
	}
}

// The whole acceptance run replays exactly for the same seeds.
func TestPackedRunReplays(t *testing.T) {
	a, _ := New("packed", Options{HighThresholdPercent: 80})
	first := place(t, a, emptyNodes(10, 10), 20)
	second := place(t, a, emptyNodes(10, 10), 20)
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("run 1 %v, run 2 %v", first, second)
		}
	}
}

func TestChooseDoesNotAllocate(t *testing.T) {
	nodes := emptyNodes(20, 10)
	nodes[3].UsedMB, nodes[3].FitsMB = 9, 1
	nodes[7].UsedMB, nodes[7].FitsMB = 5, 5
	req := Request{MemoryMB: 1, Preferred: []string{"c", "q"}, Waited: time.Second, Seed: 7}
	for _, name := range Names() {
		a, _ := New(name, Options{HighThresholdPercent: 80, LocalityDelay: time.Millisecond})
		if allocs := testing.AllocsPerRun(100, func() { a.Choose(nodes, req) }); allocs != 0 {
			t.Errorf("%s: %v allocations per Choose, want 0", name, allocs)
		}
	}
}

func TestNew(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "packed,uniform" {
		t.Errorf("Names() = %s", got)
	}
	for _, name := range Names() {
		a, err := New(name, Options{})
		if err != nil || a.Name() != name {
			t.Errorf("New(%q) = %v, %v", name, a, err)
		}
	}
	_, err := New("binpack", Options{})
	var unknown *UnknownSchemeError
	if !errors.As(err, &unknown) || unknown.Scheme != "binpack" {
		t.Fatalf("New(binpack) error = %v", err)
	}
	for _, want := range []string{"ebb.packing.scheme", "binpack", "packed", "uniform"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	bad := []struct {
		opts Options
		key  string
	}{
		{Options{HighThresholdPercent: 101}, "ebb.packing.high.threshold.percent"},
		{Options{HighThresholdPercent: -1}, "ebb.packing.high.threshold.percent"},
		{Options{MinNodes: -1}, "ebb.packing.min.nodes"},
		{Options{LocalityDelay: -time.Millisecond}, "ebb.packing.locality.delay.ms"},
	}
	for _, b := range bad {
		_, err := New("packed", b.opts)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Key != b.key {
			t.Errorf("New(packed, %+v) error = %v, want one for %s", b.opts, err, b.key)
		}
	}
}
