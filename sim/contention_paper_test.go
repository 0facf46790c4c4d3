package sim

import (
	"math"
	"testing"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// The disk: one stream gets the whole disk; two or more switch every
// 125 ms quantum at a positioning of 8.5 + 4.1667 = 12.6667 ms, so they
// get 125 / 137.6667 = 0.90799 of it between them.
func TestDiskEfficiency(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{0, 1}, {1, 1}, {2, 0.90799}, {8, 0.90799}} {
		if got := diskEfficiency(c.n); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("diskEfficiency(%d) = %.5f, want %.5f", c.n, got, c.want)
		}
	}
}

// Paging, by hand (R = 6400 / 65 = 98.4615):
//   - memory 1.0 or less: no paging, 1;
//   - memory 1.25, f = 0.25 / 1.25 = 0.2, CPU 0.25 (phi = 0.5):
//     0.5 + 0.5 x (1 + 0.2 x 97.4615) = 0.5 + 0.5 x 20.4923 = 10.7462;
//   - the same node, a task with CPU 0.1 (phi = 0.2): 0.8 + 0.2 x 20.4923 = 4.8985;
//   - a task that does no computing (CPU 0) waits only for its disk: 1;
//   - memory 2.0, f = 0.5, CPU 0.5 (phi = 1): 1 + 0.5 x 97.4615 = 49.7308.
func TestPageSlowdown(t *testing.T) {
	for _, c := range []struct {
		cpu, mem, want float64
	}{
		{0.25, 1.0, 1},
		{0.25, 0.7, 1},
		{0.25, 1.25, 10.7462},
		{0.1, 1.25, 4.8985},
		{0, 1.25, 1},
		{0.5, 2.0, 49.7308},
	} {
		if got := pageSlowdown(c.cpu, c.mem); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("pageSlowdown(cpu %g, memory %g) = %.4f, want %.4f", c.cpu, c.mem, got, c.want)
		}
	}
}

// The rate: three streams at I/O 0.3 (0.9 of the disk, 0.9 / 0.90799 =
// 0.99120 with the seeks) still fit; four (1.2 / 0.90799 = 1.32160) run at
// 1 / 1.32160 = 0.75666, where plain processor sharing gives 1 / 1.2.
// CPU load beside it changes nothing for a task that does no computing.
func TestNodeLoadRate(t *testing.T) {
	p := &dag.Profile{IO: 0.3, Memory: 0.1}
	for _, c := range []struct {
		name  string
		l     nodeLoad
		paper bool
		want  float64
	}{
		{"three streams", nodeLoad{io: 0.9, streams: 3, cpu: 1.5, mem: 0.3}, true, 1},
		{"four streams", nodeLoad{io: 1.2, streams: 4, mem: 0.4}, true, 0.75666},
		{"four streams, plain sharing", nodeLoad{io: 1.2, streams: 4, mem: 0.4}, false, 1 / 1.2},
		{"memory over, plain sharing", nodeLoad{io: 0.3, streams: 1, mem: 3}, false, 1},
	} {
		if got := c.l.rate(p, c.paper); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("%s: rate %.5f, want %.5f", c.name, got, c.want)
		}
	}
	if got := (nodeLoad{mem: 5}).rate(nil, true); got != 1 {
		t.Errorf("an attempt without a profile: rate %g, want 1", got)
	}
}

// A node over-committed in memory runs its tasks slower, by the
// documented amount. Two 60 s attempts at CPU 0.25 (phi = 0.5) on one
// node: at memory 0.4 each (0.8 in all) nothing pages and the job ends
// after 60 s; at 0.6 each (1.2: f = 0.2 / 1.2 = 1/6) each is stretched by
// 0.5 + 0.5 x (1 + 97.4615 / 6) = 9.1218, so 60 s of work takes 547.31 s.
// Without the paper's hardware (every other policy) memory is free: 60 s.
func TestMemoryOvercommitPages(t *testing.T) {
	mk := func(mem float64) []Job {
		j := job("m", 0, 2, 1000, 60*time.Second, 10000)
		j.Spec.Vertices[0].Profile = &dag.Profile{CPU: 0.25, Memory: mem}
		return []Job{j}
	}
	run := func(jobs []Job, paper bool) float64 {
		p, err := ParsePolicy("static-1")
		if err != nil {
			t.Fatal(err)
		}
		p.PaperHardware = paper
		rec, err := Run(jobs, testConfig(), p)
		if err != nil {
			t.Fatal(err)
		}
		j := rec.Run().Jobs[0]
		return j.Finish.Seconds()
	}
	base := run(mk(0.4), true)
	for _, c := range []struct {
		name  string
		mem   float64
		paper bool
		want  float64
	}{
		{"fits", 0.4, true, 0},
		{"over by 0.2", 0.6, true, 547.31 - 60},
		{"over, plain sharing", 0.6, false, 0},
	} {
		if got := run(mk(c.mem), c.paper) - base; math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s: the job took %.2f s longer than at memory 0.8, want %.2f", c.name, got, c.want)
		}
	}
}
