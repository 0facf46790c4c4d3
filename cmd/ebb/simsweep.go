package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ebb-am/ebb/sim"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// runSweep runs every policy at every value of the swept key (once, for a
// policy the key does not apply to), summarises each run against the
// reference and the oracle, prints the sweep table (or JSON) and plots
// cost against p95 slowdown.
func runSweep(out io.Writer, progress *printer, f simFlags, jobs []trace.Job, policies []sim.Policy) error {
	key, list, ok := strings.Cut(f.sweep, "=")
	values := strings.Split(list, ",")
	if !ok || key == "" || list == "" {
		return fmt.Errorf("--sweep %q: want KEY=v1,v2 (a comma-separated list of values)", f.sweep)
	}
	type point struct {
		policy, value string
		run           report.Run
	}
	// Every (policy, value) first, then all replays side by side.
	var points []point
	var toRun []sim.Policy
	swept := false
	for _, base := range policies {
		ran := false
		for _, v := range values {
			p := base
			ok, err := p.Set(key, strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("--sweep: %w", err)
			}
			if !ok {
				break
			}
			swept, ran = true, true
			points = append(points, point{policy: base.Name, value: strings.TrimSpace(v)})
			toRun = append(toRun, p)
		}
		if !ran {
			points = append(points, point{policy: base.Name})
			toRun = append(toRun, base)
		}
	}
	if !swept {
		return fmt.Errorf("--sweep: %s applies to none of the policies run", key)
	}
	runs, err := runPolicies(progress, jobs, f.cfg, toRun, f.parallel)
	if err != nil {
		return err
	}
	for i := range points {
		points[i].run = runs[i]
	}
	// Each run is summarised with the reference and the oracle (run once
	// each, the key not applying to them, or at its first value).
	var firsts []report.Run // each policy's first run, in run order
	for i, pt := range points {
		if i == 0 || points[i-1].policy != pt.policy {
			firsts = append(firsts, pt.run)
		}
	}
	sw := report.Sweep{Key: key}
	for _, pt := range points {
		runs := []report.Run{pt.run}
		for _, r := range firsts {
			if r.Policy != pt.policy {
				runs = append(runs, r)
			}
		}
		rep := report.Summarize(runs, f.reference)
		sw.Points = append(sw.Points, report.SweepPoint{Policy: pt.policy, Value: pt.value, Summary: rep.Policies[0]})
	}
	if f.jsonOut {
		err = sw.WriteJSON(out)
	} else {
		err = sw.WriteTable(out)
	}
	if err != nil {
		return err
	}
	if f.plots != "" {
		files, err := sw.WritePlot(f.plots)
		if err != nil {
			return err
		}
		progress.printf("sim: plots: %s\n", strings.Join(files, ", "))
	}
	return progress.done(nil)
}
