package sim

import (
	"testing"
	"time"
)

// Stragglers in the sim, and speculation against them, with figures by
// hand. Four static nodes of 10,000 MB and 10 vcores, one 10,000 MB worker
// on each (a worker fills its node; ten 1000 MB tasks fit its memory and
// its vcores); one job of 40 tasks of 1000 MB and 60 s fills all 40 slots,
// ten per node. The 4th node the run meets is slow (factor 5): its 10
// tasks take 300 s.
//
//   - no slow node: every task ends at 60 s;
//   - slow node, no speculation: the job ends with the slow tasks, at 300 s;
//   - speculation, the keys' defaults: from 10 s (the minimum run time)
//     the slow tasks' estimated run time, 300 s, is more than 1.5 times
//     the median's 60 s (30 of the 40 rates are fast), but no slot is
//     free before 60 s; then the fast tasks' slots free up, each slow
//     task has 240 s left against a fresh attempt's 60 s (the mean
//     finished run time), and the minimum allowed (10) lets all ten
//     backups start at once, off the slow node: they win at 120 s;
//   - the same with no minimum allowed (ebb.speculation.min.allowed.tasks
//     0), the cap 10% of 40 tasks, four at a time: four backups win at
//     120 s, four more at 180 s, the last two at 240 s;
//   - cap 50% (20), no minimum allowed: all ten at 60 s, won at 120 s.
func TestSimStragglersAndSpeculation(t *testing.T) {
	jobs := func() []Job { return []Job{job("j", 0, 40, 1000, 60*time.Second, 10000)} }
	cfg := testConfig()
	cfg.Cloud.Types[0].VCores = 10
	slow := cfg
	slow.Stragglers = Stragglers{Every: 4, Factor: 5}
	run := func(cfg Config, sets ...string) time.Duration {
		t.Helper()
		p, err := ParsePolicy("static-4")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(sets); i += 2 {
			if _, err := p.Set(sets[i], sets[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := Run(jobs(), cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		r := rec.Run()
		if !r.Jobs[0].Completed {
			t.Fatal("the job did not complete")
		}
		return r.Jobs[0].Finish
	}
	for _, c := range []struct {
		what string
		cfg  Config
		sets []string
		want time.Duration
	}{
		{"no slow node", cfg, nil, 60 * time.Second},
		{"slow node, no speculation", slow, nil, 300 * time.Second},
		{"slow node, speculation (defaults: at least 10 backups)", slow, []string{"ebb.speculation.enabled", "true"}, 120 * time.Second},
		{"slow node, speculation capped at 10%, no minimum", slow, []string{"ebb.speculation.enabled", "true", "ebb.speculation.min.allowed.tasks", "0"}, 240 * time.Second},
		{"slow node, speculation capped at 50%, no minimum", slow, []string{"ebb.speculation.enabled", "true", "ebb.speculation.min.allowed.tasks", "0", "ebb.speculation.cap.percent", "50"}, 120 * time.Second},
	} {
		got := run(c.cfg, c.sets...)
		t.Logf("%s: the job took %s", c.what, got)
		if got != c.want {
			t.Errorf("%s: the job took %s, want %s", c.what, got, c.want)
		}
	}
}

// A bad straggler model is refused before a run.
func TestStragglersValidate(t *testing.T) {
	for _, s := range []Stragglers{{Every: -1}, {Every: 2, Factor: 0.5}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: accepted", s)
		}
	}
}

// With speculation on the engine reports each working attempt's progress
// to the core every tick, at its node's speed: one 100 s task on a node
// made slow by 2 has done 25 s of work by t = 50 s, a quarter.
func TestSimReportsProgressAtTheNodesSpeed(t *testing.T) {
	cfg := testConfig()
	cfg.Stragglers = Stragglers{Every: 1, Factor: 2}
	p, err := ParsePolicy("static-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Set("ebb.speculation.enabled", "true"); err != nil {
		t.Fatal(err)
	}
	jobs := []Job{job("j", 0, 1, 1000, 100*time.Second, 1000)}
	e, err := newEngine(cfg, p, time.Unix(0, 0).UTC(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	e.plan(jobs)
	for e.err == nil && e.clk.now.Before(time.Unix(50, 0)) && e.clk.next() {
	}
	as := e.core.Attempts("")
	if len(as) != 1 {
		t.Fatalf("%d attempts, want 1", len(as))
	}
	if as[0].Progress != 0.25 {
		t.Fatalf("at %s the attempt's progress is %g, want 0.25", e.clk.now.UTC().Format(time.TimeOnly), as[0].Progress)
	}
}
